import { Directory, type HttpRoute } from '@townhall/contracts';
import { counter } from '@townhall/platform';
import { LRUCache } from 'lru-cache';
import { ChangeClock } from './change-clock.js';

/** The injection token of the gateway's CardReads (absent without a live stream: nothing would invalidate it). */
export const CARD_READS = Symbol('CardReads');

/** What announces a card's change on the stream (the directory's `townhall.card.*`). */
export const CARD_TOPICS = 'townhall.card.';

const cardReadRequests = counter(
  'townhall_card_cache_requests_total',
  'Signed directory card reads by what the gateway cache did: hit (served from memory), miss (asked the directory)',
  ['outcome'],
);

export interface CardReadsOptions {
  /** The longest a card is served, whatever happened (READ_CACHE_MAX_AGE_MS). */
  maxAgeMs: number;
  /** Cards kept at most; the least recently read go first. Default 50,000. */
  maxEntries?: number;
  now?: () => number;
}

interface Kept {
  card: unknown;
  storedAt: number;
}

/**
 * Signed `GET /directory/{agentId}` answered from memory: a read then costs the gateway its
 * signature check, its nonce and this lookup, and no message to the directory. A card is never
 * served once a change of it is known here: the directory's `townhall.card.updated` (the live
 * feed, in stream order) and every successful `PUT /directory/me` through this gateway (read your
 * own write at once) mark it changed, and a reply whose read began before that mark is not kept.
 * Whatever no event reaches (a feed that is down) is bounded by `maxAgeMs`. A missing card (404)
 * is not kept.
 */
export class CardReads {
  private readonly changes: ChangeClock;
  private readonly cards: LRUCache<string, Kept>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: CardReadsOptions) {
    const maxEntries = options.maxEntries ?? 50_000;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now ?? Date.now;
    this.cards = new LRUCache<string, Kept>({ max: maxEntries });
    this.changes = new ChangeClock(maxEntries * 4);
  }

  /** Whether `route` is the one read this serves. */
  covers(route: HttpRoute): boolean {
    return route.contract === Directory.getCard;
  }

  /** The agent's card changed: it is asked for again, and no read begun before now is kept. */
  changed(agentId: string): void {
    this.changes.changed(agentId);
    this.cards.delete(agentId);
  }

  /** The card from memory, or from `ask` (the directory), kept if nothing changed it meanwhile. */
  async read(agentId: unknown, ask: () => Promise<unknown>): Promise<unknown> {
    if (typeof agentId !== 'string') return ask();
    const kept = this.cards.get(agentId);
    if (kept && this.now() - kept.storedAt <= this.maxAgeMs) {
      cardReadRequests.inc({ outcome: 'hit' });
      return kept.card;
    }
    cardReadRequests.inc({ outcome: 'miss' });
    const ticket = this.changes.ticket();
    const card = await ask();
    if (!this.changes.changedSince(agentId, ticket)) this.cards.set(agentId, { card, storedAt: this.now() });
    return card;
  }
}

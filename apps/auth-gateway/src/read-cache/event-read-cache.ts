import { LRUCache } from 'lru-cache';
import { entityTagOf } from '../entity-tag.js';
import { ChangeClock } from './change-clock.js';

/** One cached public reply: the body exactly as sent, its type and its strong ETag. */
export interface CachedReply {
  body: string;
  contentType: string;
  etag: string;
  storedAt: number;
  /** The cache's clock when the read that produced it began (see `EventReadCache.ticket`). */
  ticket: number;
}

export interface EventReadCacheOptions {
  /** Most replies kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
  /** Most bytes of bodies kept. Default 64 MiB. */
  maxBytes?: number;
  /**
   * The longest a reply is served, whatever happened. Invalidation by domain events is what keeps
   * replies current; this bounds what no domain event announces (an event's counts, a projection
   * the owning service updates after the event that caused it). Default 1 s.
   */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * The gateway's copies of public replies about one event (GET /events/{id}, its stage, questions,
 * polls, recording), so that reads scale with the audience instead of with the services. A reply
 * is never served once a change of its event is known here: every domain event about an event
 * (the live feed, in stream order) and every successful write through this gateway to an
 * `/events/{id}/...` route marks the event changed, and a reply whose read began before that mark
 * is neither stored nor served. Only the owning services hold state; this holds bytes they sent.
 */
export class EventReadCache {
  private readonly changes: ChangeClock;
  private readonly replies: LRUCache<string, CachedReply>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: EventReadCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    this.maxAgeMs = options.maxAgeMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.replies = new LRUCache<string, CachedReply>({
      max: maxEntries,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (reply) => Math.max(1, reply.body.length),
    });
    this.changes = new ChangeClock(maxEntries * 4);
  }

  /** Taken before a read is sent to a service: its reply may be stored only if nothing changed since. */
  ticket(): number {
    return this.changes.ticket();
  }

  /** The fresh reply for `key` (input/query-policy.ts `readKeyOf`: route and parsed fields) of `eventId`, if any. */
  get(eventId: string, key: string): CachedReply | undefined {
    const reply = this.replies.get(key);
    if (!reply) return undefined;
    if (this.changes.changedSince(eventId, reply.ticket) || this.now() - reply.storedAt >= this.maxAgeMs) {
      this.replies.delete(key);
      return undefined;
    }
    return reply;
  }

  /** Keeps a reply whose read began at `ticket`, unless its event changed since; answers its ETag. */
  store(eventId: string, key: string, ticket: number, body: string, contentType: string): string {
    const etag = entityTagOf(body);
    if (!this.changes.changedSince(eventId, ticket))
      this.replies.set(key, { body, contentType, etag, storedAt: this.now(), ticket });
    return etag;
  }

  /** Something about `eventId` changed: no reply read before now is served again. */
  changed(eventId: string): void {
    this.changes.changed(eventId);
  }

  get size(): number {
    return this.replies.size;
  }
}

import {
  Directory,
  DomainError,
  Events,
  MAX_CARDS_AT_ONCE,
  Polls,
  Questions,
  Recordings,
  Stage,
  type EventView,
  type MessageMeta,
  type Page,
  type PollView,
  type QuestionView,
  type RecordingView,
} from '@townhall/contracts';
import type { ServiceClient } from '@townhall/platform';
import { agentsWithRoles } from './agent-labels.js';
import { isShownQuestionState, LIST_LIMIT, STAGE_LIMIT, type StageMessageOnPage } from './page-text.js';
import { RecentReads } from './recent-reads.js';

/** Everything one watch page shows, read from the services that own it. */
export interface WatchState {
  event: EventView;
  /** The `@handle` (without `@`) of each agent with a role in the event that has a directory card. */
  handles: ReadonlyMap<string, string>;
  stage: { messages: StageMessageOnPage[]; more: boolean };
  /** By upvotes, then age (`sort=top`). */
  questions: { items: QuestionView[]; more: boolean };
  /** In opening order. */
  polls: { items: PollView[]; more: boolean };
  /** After the end: the published recording, or `unpublished` (404 `recording.not_found`); before, undefined. */
  recording: RecordingView | 'unpublished' | undefined;
  /**
   * The live stream's position before anything was read: resuming there (`?lastEventId=`) replays
   * every change the reads might have missed. Undefined when this gateway has no live feed yet.
   */
  position: number | undefined;
}

/** What the index shows: live events, then scheduled ones, each sorted by start; then recent past ones. */
export interface IndexState {
  live: { items: EventView[]; more: boolean };
  upcoming: { items: EventView[]; more: boolean };
  /**
   * The most recent first (by start): at most PAST_SHOWN of those that started in the last
   * PAST_DAYS; each says whether its recording is published (`recordingPublishedAt`).
   */
  past: { items: EventView[]; more: boolean };
}

/** How far back the index looks for past events, and how many it shows. */
export const PAST_DAYS = 7;
export const PAST_SHOWN = 10;
/** Past events are listed by start, oldest first: the index reads at most this many pages to find the newest. */
const PAST_PAGES = 3;
const DAY_MS = 86_400_000;

/** How long a handle read for a page is kept (RecentReads). */
export const RECENT_READ_TTL_MS = 30_000;

/** The reads the pages share across requests: this process's, kept RECENT_READ_TTL_MS. */
export class SharedReads {
  /** `handle` null: no directory card. */
  readonly handles: RecentReads<{ handle: string | null }>;

  constructor(services: ServiceClient) {
    const options = { ttlMs: RECENT_READ_TTL_MS, max: 10_000 };
    this.handles = new RecentReads(async (agentIds, meta) => {
      // One request for up to MAX_CARDS_AT_ONCE agents (a stage's host, moderators and speakers).
      const cards = new Map<string, { handle: string | null }>(agentIds.map((id) => [id, { handle: null }]));
      for (let at = 0; at < agentIds.length; at += MAX_CARDS_AT_ONCE) {
        const chunk = agentIds.slice(at, at + MAX_CARDS_AT_ONCE);
        const { items } = await services.send(Directory.getCards, { agentIds: chunk }, meta);
        for (const card of items) cards.set(card.agentId, { handle: card.handle });
      }
      return cards;
    }, options);
  }
}

/**
 * The public reads a page is made of. They go to the services as the public routes send them:
 * no caller (`caller: null`), so a page can never show what only a signed read may see (pending
 * questions, reports), whoever asks for it.
 */
export class WatchReads {
  constructor(
    private readonly services: ServiceClient,
    private readonly shared: SharedReads,
    private readonly requestId: string,
    private readonly now: () => number = Date.now,
  ) {}

  private get meta(): MessageMeta {
    return { requestId: this.requestId, caller: null };
  }

  async watch(eventId: string, position: number | undefined): Promise<WatchState> {
    // Asked at once: an unknown event fails all four the same way, and the event's answer is the one that counts.
    const [event, stage, questions, polls] = await Promise.all([
      this.services.send(Events.get, { eventId }, this.meta),
      this.stage(eventId),
      this.services.send(Questions.list, { eventId, sort: 'top', limit: LIST_LIMIT }, this.meta),
      this.services.send(Polls.list, { eventId, limit: LIST_LIMIT }, this.meta),
    ]);
    const [cards, recording] = await Promise.all([
      this.shared.handles.of(agentsWithRoles(event), this.meta),
      event.status === 'past' ? this.recording(eventId) : Promise.resolve(undefined),
    ]);
    const handles = new Map<string, string>();
    for (const [agentId, { handle }] of cards) if (handle !== null) handles.set(agentId, handle);
    return {
      event,
      handles,
      stage,
      questions: {
        items: questions.items.filter((question) => isShownQuestionState(question.state)),
        more: questions.nextCursor !== null,
      },
      polls: { items: polls.items, more: polls.nextCursor !== null },
      recording,
      position,
    };
  }

  async index(): Promise<IndexState> {
    const [live, upcoming, past] = await Promise.all([
      this.services.send(Events.list, { status: 'live', limit: LIST_LIMIT }, this.meta),
      this.services.send(Events.list, { status: 'scheduled', limit: LIST_LIMIT }, this.meta),
      this.recentPast(),
    ]);
    return {
      live: { items: live.items, more: live.nextCursor !== null },
      upcoming: { items: upcoming.items, more: upcoming.nextCursor !== null },
      past,
    };
  }

  /** The stage from its first message, up to STAGE_LIMIT of them. */
  private async stage(eventId: string): Promise<WatchState['stage']> {
    const messages: StageMessageOnPage[] = [];
    let after = 0;
    for (;;) {
      const page = await this.services.send(Stage.list, { eventId, after, limit: 100 }, this.meta);
      messages.push(...page.items);
      const last = page.items.at(-1);
      if (page.nextCursor === null || !last) return { messages, more: false };
      if (messages.length >= STAGE_LIMIT) return { messages, more: true };
      after = last.sequence;
    }
  }

  /** The events that started in the last PAST_DAYS and have ended, the newest first. */
  private async recentPast(): Promise<IndexState['past']> {
    const from = new Date(this.now() - PAST_DAYS * DAY_MS).toISOString();
    const events: EventView[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < PAST_PAGES && (page === 0 || cursor !== null); page++) {
      const read: Page<EventView> = await this.services.send(
        Events.list,
        { status: 'past', from, limit: LIST_LIMIT, ...(cursor === null ? {} : { cursor }) },
        this.meta,
      );
      events.push(...read.items);
      cursor = read.nextCursor;
    }
    return {
      items: events.slice(-PAST_SHOWN).reverse(),
      more: events.length > PAST_SHOWN || cursor !== null,
    };
  }

  private async recording(eventId: string): Promise<RecordingView | 'unpublished'> {
    return (
      // The page shows the recording's summary and media, none of its lists: the smallest page.
      (await orNull(
        this.services.send(Recordings.get, { eventId, limit: 1 }, this.meta),
        'recording.not_found',
      )) ?? 'unpublished'
    );
  }
}

/** The answer, or null where the service says there is none (`code`). */
async function orNull<T>(
  answer: Promise<T>,
  code: 'directory.card_not_found' | 'recording.not_found',
): Promise<T | null> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof DomainError && error.code === code) return null;
    throw error;
  }
}

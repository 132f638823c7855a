import {
  Directory,
  DomainError,
  Events,
  Polls,
  Questions,
  Recordings,
  Stage,
  type EventView,
  type MessageMeta,
  type PollView,
  type QuestionView,
  type RecordingView,
  type StageMessageView,
} from '@townhall/contracts';
import type { ServiceClient } from '@townhall/platform';

/**
 * A stage message as the page shows it. Written to fit the contract both before and after
 * moderation (docs/product.md "Moderation"): a hidden message keeps its place with
 * `hidden: true` and `body: null`.
 */
export type StageMessageOnPage = Omit<StageMessageView, 'body' | 'hidden'> & {
  body: string | null;
  hidden?: boolean;
};

/** The question states anyone may read; a public read never answers others, and the page never shows them. */
export const PUBLIC_QUESTION_STATES: ReadonlySet<string> = new Set([
  'open',
  'promoted',
  'answered',
  'dismissed',
]);

/** The most stage messages one page reads (pages of 100 from the first). */
export const STAGE_LIMIT = 500;
/** One page of the top questions, and of the polls. */
export const LIST_LIMIT = 100;

/** Everything one watch page shows, read from the services that own it. */
export interface WatchState {
  event: EventView;
  /** The host's `@handle` when it has a directory card. */
  hostHandle: string | null;
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

/** What the index shows: live events, then scheduled ones, each sorted by start. */
export interface IndexState {
  live: { items: EventView[]; more: boolean };
  upcoming: { items: EventView[]; more: boolean };
}

/**
 * The public reads a page is made of. They go to the services as the public routes send them:
 * no caller (`caller: null`), so a page can never show what only a signed read may see (pending
 * questions, reports), whoever asks for it.
 */
export class WatchReads {
  constructor(
    private readonly services: ServiceClient,
    private readonly requestId: string,
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
    const [hostHandle, recording] = await Promise.all([
      this.handleOf(event.hostId),
      event.status === 'past' ? this.recording(eventId) : Promise.resolve(undefined),
    ]);
    return {
      event,
      hostHandle,
      stage,
      questions: {
        items: questions.items.filter((question) => PUBLIC_QUESTION_STATES.has(question.state)),
        more: questions.nextCursor !== null,
      },
      polls: { items: polls.items, more: polls.nextCursor !== null },
      recording,
      position,
    };
  }

  async index(): Promise<IndexState> {
    const [live, upcoming] = await Promise.all([
      this.services.send(Events.list, { status: 'live', limit: LIST_LIMIT }, this.meta),
      this.services.send(Events.list, { status: 'scheduled', limit: LIST_LIMIT }, this.meta),
    ]);
    return {
      live: { items: live.items, more: live.nextCursor !== null },
      upcoming: { items: upcoming.items, more: upcoming.nextCursor !== null },
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

  private async handleOf(agentId: string): Promise<string | null> {
    try {
      return (await this.services.send(Directory.getCard, { agentId }, this.meta)).handle;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'directory.card_not_found') return null;
      throw error;
    }
  }

  private async recording(eventId: string): Promise<RecordingView | 'unpublished'> {
    try {
      return await this.services.send(Recordings.get, { eventId }, this.meta);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'recording.not_found') return 'unpublished';
      throw error;
    }
  }
}

import type { EventStatus, Page, PollView, QuestionView } from '@townhall/contracts';
import { EventClock } from '../../pages/event-clock.js';
import {
  LIST_LIMIT,
  liveStatusText,
  STAGE_LIMIT,
  type StageMessageOnPage,
  type WatchConfig,
} from '../../pages/page-text.js';
import { PageLists } from './lists.js';
import { EventSections, getJson } from './sections.js';

/** The live stream's message types the page shows (every other one is ignored). */
const FOLLOWED = [
  'townhall.stage.posted',
  'townhall.stage.hidden',
  'townhall.question.submitted',
  'townhall.question.approved',
  'townhall.question.upvoted',
  'townhall.question.promoted',
  'townhall.question.answered',
  'townhall.question.dismissed',
  'townhall.question.withdrawn',
  'townhall.question.held',
  'townhall.poll.opened',
  'townhall.poll.voted',
  'townhall.poll.closed',
  'townhall.participant.blocked',
  'townhall.participant.unblocked',
  'townhall.event.scheduled',
  'townhall.event.updated',
  'townhall.event.started',
  'townhall.event.ended',
  'townhall.event.cancelled',
  'townhall.ticket.issued',
  'townhall.ticket.cancelled',
  'townhall.recording.published',
];

/** Messages that change the lists, which wait while the lists are read again. */
const LIST_CHANGE = /^townhall\.(stage|question|poll)\./;

const FIRST_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;
const UNREADABLE = 'Some updates could not be read: reload the page to see everything.';

/**
 * A watch page following its event's live stream (`GET /events/{id}/live`), changing in place.
 *
 * - No gap between the page and the stream: the page carries the stream's position from before
 *   its reads (`lastEventId` in `<main data-watch>`) and the stream is opened from there, so every
 *   change after the reads is replayed (applied twice if it was also read: harmless, see PageLists).
 * - After a dropped connection EventSource reconnects by itself with Last-Event-ID; a connection
 *   refused outright (503 while a gateway restarts, 429) is retried here with backoff from the
 *   last id seen. `history.cut` (too far behind), a first connection without a position, and a
 *   block or unblock (whose questions leave or return) read the JSON lists again; list messages
 *   arriving meanwhile wait, and are applied after.
 * - Changes of the event (and its recording) read the page's sections again (EventSections);
 *   tickets read the seats again. The status line says what the page follows: live, or an event
 *   that has ended or was cancelled (whose page still takes a published recording, or a hide).
 */
export class LivePage {
  private readonly base: string;
  private readonly lists: PageLists;
  private readonly sections: EventSections;
  private readonly statusLine = document.getElementById('live-status');
  private status: EventStatus;
  private lastId: string | null;
  /** No position to resume from: what happened since the page was read is read again on opening. */
  private needsRead: boolean;
  private connected = false;
  private retryMs = FIRST_RETRY_MS;
  /** While the lists are read again: the list messages that arrived meanwhile, in order. */
  private waiting: { queue: Array<[type: string, data: unknown]>; done: Promise<void> } | null = null;

  constructor(main: HTMLElement, config: WatchConfig) {
    this.base = `/events/${encodeURIComponent(config.eventId)}`;
    this.status = config.status;
    this.lastId = config.lastEventId;
    this.needsRead = config.lastEventId === null;
    this.lists = new PageLists(config.labels ?? {}, new EventClock(config.timezone));
    this.sections = new EventSections(
      main,
      this.base,
      (fresh) => {
        this.lists.labels = fresh.labels ?? this.lists.labels;
        this.follows(fresh.status);
      },
      () => this.say(UNREADABLE),
    );
  }

  /** Opens the live stream. */
  follow(): void {
    const source = new EventSource(
      `${this.base}/live${this.lastId ? `?lastEventId=${encodeURIComponent(this.lastId)}` : ''}`,
    );
    for (const type of FOLLOWED) source.addEventListener(type, (message) => this.onMessage(message));
    source.addEventListener('history.cut', (message) => {
      if (message.lastEventId) this.lastId = message.lastEventId;
      void this.rereadLists();
      this.sections.reread();
    });
    source.addEventListener('open', () => {
      this.retryMs = FIRST_RETRY_MS;
      this.connected = true;
      this.say(liveStatusText(this.status));
      if (this.needsRead) {
        this.needsRead = false;
        void this.rereadLists();
        this.sections.reread();
      }
    });
    source.addEventListener('error', () => {
      this.connected = false;
      this.say('Reconnecting…');
      // Refused (a 503 while a gateway restarts, 429): EventSource gives up, so this retries.
      // Otherwise EventSource retries by itself, with Last-Event-ID.
      if (source.readyState !== EventSource.CLOSED) return;
      window.setTimeout(() => this.follow(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    });
  }

  private say(text: string): void {
    if (this.statusLine && this.statusLine.textContent !== text) this.statusLine.textContent = text;
  }

  /** The event's status as the stream or the page read again says it. */
  private follows(status: EventStatus | undefined): void {
    if (status === undefined) return;
    this.status = status;
    if (this.connected) this.say(liveStatusText(status));
  }

  private onMessage(message: MessageEvent<string>): void {
    if (message.lastEventId) this.lastId = message.lastEventId;
    let cloudEvent: unknown;
    try {
      cloudEvent = JSON.parse(message.data);
    } catch {
      return; // not a CloudEvent: nothing this page knows
    }
    if (cloudEvent && typeof cloudEvent === 'object')
      this.apply(message.type, (cloudEvent as { data?: unknown }).data);
  }

  private apply(type: string, data: unknown): void {
    if (this.waiting && LIST_CHANGE.test(type)) {
      this.waiting.queue.push([type, data]);
      return;
    }
    const agentId = (data as { agentId?: unknown } | null)?.agentId;
    if (type === 'townhall.stage.posted' || type === 'townhall.stage.hidden')
      this.lists.putMessage(data as StageMessageOnPage);
    else if (type === 'townhall.question.withdrawn' || type === 'townhall.question.held')
      this.lists.removeQuestion((data as { id?: unknown } | null)?.id);
    else if (type.startsWith('townhall.question.')) this.lists.putQuestion(data as QuestionView);
    else if (type.startsWith('townhall.poll.')) this.lists.putPoll(data as PollView);
    else if (type === 'townhall.participant.blocked' || type === 'townhall.participant.unblocked') {
      if (typeof agentId === 'string') this.lists.block(agentId, type === 'townhall.participant.blocked');
      void this.rereadLists();
    } else if (type.startsWith('townhall.ticket.')) this.sections.seatsChanged();
    else if (type.startsWith('townhall.event.') || type === 'townhall.recording.published') {
      // An event message carries the event: its status is known at once, its sections follow.
      if (type.startsWith('townhall.event.')) this.follows((data as { status?: EventStatus } | null)?.status);
      this.sections.reread();
    }
  }

  /** The stage, the questions and the polls, read again as JSON; list messages wait meanwhile. */
  private rereadLists(): Promise<void> {
    if (this.waiting) return this.waiting.done;
    const queue: Array<[string, unknown]> = [];
    const done = Promise.all([
      this.readStage(),
      getJson<Page<QuestionView>>(`${this.base}/questions?sort=top&limit=${LIST_LIMIT}`),
      getJson<Page<PollView>>(`${this.base}/polls?limit=${LIST_LIMIT}`),
    ])
      .then(([stage, questions, polls]) => this.lists.replace(stage, questions.items, polls.items))
      .catch(() => this.say(UNREADABLE))
      .then(() => {
        this.waiting = null;
        for (const [type, data] of queue) this.apply(type, data);
      });
    this.waiting = { queue, done };
    return done;
  }

  /** The stage from its first message, as the page reads it (pages of 100, up to STAGE_LIMIT). */
  private async readStage(): Promise<StageMessageOnPage[]> {
    const messages: StageMessageOnPage[] = [];
    for (let after = 0; ;) {
      const page = await getJson<Page<StageMessageOnPage>>(`${this.base}/stage?limit=100&after=${after}`);
      messages.push(...page.items);
      const last = page.items.at(-1);
      if (page.nextCursor === null || !last || messages.length >= STAGE_LIMIT) return messages;
      after = last.sequence;
    }
  }
}

import type { LiveListener } from './live-hub.js';
import {
  historyCutFrame,
  isStageHidden,
  redactedStageFrame,
  type HistoryCutReason,
  type LiveMessage,
} from './live-message.js';
import type { SseConnection } from './sse-connection.js';

/** Where a resuming client's missed messages come from: the stream itself. */
export interface LiveHistory {
  /**
   * The live messages about `eventId` with `after < seq`, in stream order, up to at least
   * `upTo` (the hub's position when the client joined). Stops when the caller stops iterating.
   */
  replay(eventId: string, after: number, upTo: number): AsyncIterable<LiveMessage>;
  /**
   * The sequences the stream holds now: `first`, its oldest message (the next one to be written
   * when it holds none), and `last`, its newest (`first - 1` when empty). A resume from before
   * `first` missed messages that nobody can replay any more (aged out, or standalone's log
   * before a restart); one from past `last` comes from a stream that was since reset.
   */
  span(): Promise<{ first: number; last: number }>;
}

/**
 * Who reads a stream that was signed: the agent, and whether it is the event's host or one of its
 * moderators (staff), who see every agent's records as the attendee list shows them.
 */
export interface LiveViewer {
  agentId: string;
  staff: boolean;
}

/**
 * One client of one event's live stream. Without Last-Event-ID it forwards what the hub
 * delivers. When resuming, it subscribes first and holds what the hub delivers (bounded, like
 * the connection's buffer) while it replays the missed messages from the stream up to the hub's
 * position at subscription; then it sends what it held. Every message is sent at most once and
 * in order: anything at or below the last sequence sent is dropped, so the switch-over from
 * replay to live has neither gap nor duplicate.
 */
export class LiveSubscriber implements LiveListener {
  private held: LiveMessage[] | undefined;
  private lastSeq: number;
  private readonly viewer: LiveViewer | undefined;

  constructor(
    readonly eventId: string,
    private readonly connection: SseConnection,
    private readonly bufferLimit: number,
    resumeAfter: number | undefined,
    /** The signed stream's agent; undefined for an anonymous one, which sees records as counts. */
    viewer?: LiveViewer,
  ) {
    this.viewer = viewer ? { ...viewer } : undefined;
    this.lastSeq = resumeAfter ?? 0;
    if (resumeAfter !== undefined) this.held = [];
  }

  /** The signed stream's agent; undefined for an anonymous one. */
  get agentId(): string | undefined {
    return this.viewer?.agentId;
  }

  deliver(message: LiveMessage): void {
    if (!this.held) {
      this.forwardLive(message);
      return;
    }
    if (this.held.length >= this.bufferLimit) {
      this.held = [];
      this.connection.abort('buffer_full');
      return;
    }
    this.held.push(message);
  }

  disconnect(): void {
    this.connection.end();
  }

  /**
   * Replays what the client missed up to `upTo`, at the client's pace, then goes live. It reads
   * at most `replayLimit` stream messages, the last ones before `upTo`: a client further behind
   * gets `history.cut` first (whatever it missed before is not looked for), so that an old
   * Last-Event-ID cannot make one resume scan the whole stream. A client whose history is gone
   * (older than the stream's first message, or from a stream since reset) is told so the same
   * way, never left to wait in silence for ids the stream will not reach.
   */
  async catchUp(history: LiveHistory, upTo: number, replayLimit: number): Promise<void> {
    const { first, last } = await history.span();
    const limit = upTo - replayLimit;
    if (this.lastSeq > last) this.cut(Math.max(first - 1, limit), 'history_gone');
    else if (this.lastSeq < Math.max(first - 1, limit)) {
      this.cut(Math.max(first - 1, limit), first - 1 >= limit ? 'history_gone' : 'too_far_behind');
    }
    // Read whole before any is sent (at most replayLimit messages): a stage message a moderator
    // hid later in the replay, or while it ran, is replayed without its body.
    const missed: LiveMessage[] = [];
    if (this.lastSeq < upTo) {
      for await (const message of history.replay(this.eventId, this.lastSeq, upTo)) {
        if (this.connection.isClosed) return;
        missed.push(message);
      }
    }
    const held = this.held ?? [];
    const hidden = new Set(
      [...missed, ...held].filter(isStageHidden).flatMap((message) => message.stageMessageId ?? []),
    );
    for (const message of missed) {
      if (this.connection.isClosed) return;
      const isHidden = message.stageMessageId !== undefined && hidden.has(message.stageMessageId);
      this.forward(message, isHidden ? redactedStageFrame(message) : this.frameOf(message));
      await this.connection.drained();
    }
    // `held` is still the array deliver() fills: what arrived while the replay was sent is in it.
    this.held = undefined;
    for (const message of held) this.forwardLive(message);
  }

  /**
   * What this client may see of a message: a record whole for its own agent and for the event's
   * staff, its counts for everyone else (and for every anonymous stream).
   */
  private frameOf(message: LiveMessage): string {
    const { record } = message;
    if (!record || !this.viewer) return message.frame;
    return this.viewer.staff || record.agentId === this.viewer.agentId ? record.frame : message.frame;
  }

  /**
   * A message that came after the client joined. An event message that names the staff anew
   * (a moderator added or removed) decides from then on; replayed ones are older than what the
   * route read when the client joined, so they decide nothing.
   */
  private forwardLive(message: LiveMessage): void {
    if (this.viewer && message.staff && message.eventId === this.eventId && message.seq > this.lastSeq)
      this.viewer.staff = message.staff.includes(this.viewer.agentId);
    this.forward(message, this.frameOf(message));
  }

  private cut(resumedAfter: number, reason: HistoryCutReason): void {
    this.connection.send(historyCutFrame(this.lastSeq, resumedAfter, reason));
    this.lastSeq = resumedAfter;
  }

  private forward(message: LiveMessage, frame = message.frame): void {
    if (message.seq <= this.lastSeq || message.eventId !== this.eventId) return;
    this.lastSeq = message.seq;
    this.connection.send(frame);
  }
}

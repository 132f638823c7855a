import type { LiveListener } from './live-hub.js';
import { historyCutFrame, type LiveMessage } from './live-message.js';
import type { SseConnection } from './sse-connection.js';

/** Where a resuming client's missed messages come from: the stream itself. */
export interface LiveHistory {
  /**
   * The live messages about `eventId` with `after < seq`, in stream order, up to at least
   * `upTo` (the hub's position when the client joined). Stops when the caller stops iterating.
   */
  replay(eventId: string, after: number, upTo: number): AsyncIterable<LiveMessage>;
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

  constructor(
    readonly eventId: string,
    private readonly connection: SseConnection,
    private readonly bufferLimit: number,
    resumeAfter: number | undefined,
  ) {
    this.lastSeq = resumeAfter ?? 0;
    if (resumeAfter !== undefined) this.held = [];
  }

  deliver(message: LiveMessage): void {
    if (!this.held) {
      this.forward(message);
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
   * Last-Event-ID cannot make one resume scan the whole stream.
   */
  async catchUp(history: LiveHistory, upTo: number, replayLimit: number): Promise<void> {
    const oldest = upTo - replayLimit;
    if (this.lastSeq < oldest) {
      this.connection.send(historyCutFrame(this.lastSeq, oldest));
      this.lastSeq = oldest;
    }
    if (this.lastSeq < upTo) {
      for await (const message of history.replay(this.eventId, this.lastSeq, upTo)) {
        if (this.connection.isClosed) return;
        this.forward(message);
        await this.connection.drained();
      }
    }
    const held = this.held ?? [];
    this.held = undefined;
    for (const message of held) this.forward(message);
  }

  private forward(message: LiveMessage): void {
    if (message.seq <= this.lastSeq || message.eventId !== this.eventId) return;
    this.lastSeq = message.seq;
    this.connection.send(message.frame);
  }
}

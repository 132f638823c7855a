import type { AgentClient, LiveEvent, LiveHistoryCut } from '@townhall/sdk';
import { waitFor } from './ports.js';

/**
 * Reads an event's live stream through the SDK in the background, reconnecting as the SDK does,
 * and keeps what arrives: the messages, the history cuts, how many times it (re)connected.
 */
export class LiveReader {
  readonly received: LiveEvent[] = [];
  readonly cuts: LiveHistoryCut[] = [];
  /** Connections opened: 1, plus one per reconnect. */
  opens = 0;
  private readonly controller = new AbortController();
  private failure: unknown;
  private pump: Promise<void> = Promise.resolve();

  /**
   * Resolves once the stream is connected: every change after that reaches it. `signed`: the
   * client signs each connection, so its own records (and, for the staff, everyone's) come whole.
   */
  static async open(
    client: AgentClient,
    eventId: string,
    lastEventId?: string,
    options: { signed?: boolean } = {},
  ): Promise<LiveReader> {
    const reader = new LiveReader();
    await new Promise<void>((resolve, reject) => {
      const stream = client.events.live(eventId, {
        signal: reader.controller.signal,
        onOpen: () => {
          reader.opens += 1;
          resolve();
        },
        onHistoryCut: (cut) => reader.cuts.push(cut),
        ...(options.signed ? { signed: true } : {}),
        ...(lastEventId === undefined ? {} : { lastEventId }),
      });
      reader.pump = (async () => {
        for await (const message of stream) reader.received.push(message);
      })().catch((error: unknown) => {
        reader.failure = error;
        reject(error);
      });
    });
    return reader;
  }

  /** What ended the stream with an error, if anything did. */
  get error(): unknown {
    return this.failure;
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<LiveEvent[]> {
    return waitFor(
      `${count} live messages (have ${this.received.length})`,
      async () => {
        if (this.failure) throw this.failure;
        return this.received.length >= count ? this.received : undefined;
      },
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.pump;
  }
}

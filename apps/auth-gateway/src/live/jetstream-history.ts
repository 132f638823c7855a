import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_STREAM, TOWNHALL_SUBJECTS } from '@townhall/contracts';
import { decodeLiveMessage, type LiveMessage } from './live-message.js';
import type { LiveHistory } from './live-subscriber.js';

// The replay consumer lives only as long as one client's catch-up; if the delete after it is
// lost, the server removes it after this long without a pull.
const REPLAY_INACTIVE_MS = 30_000;
const REPLAY_BATCH = 256;

/**
 * Missed messages for a resuming client, read from the TOWNHALL stream with a short-lived
 * ordered consumer from the client's Last-Event-ID. The event id is in the CloudEvents
 * `subject`, not in the NATS subject, so the consumer reads all of `townhall.>` and the
 * messages are filtered here (nats-server 2.9 has one filter subject per consumer anyway).
 */
export class JetStreamHistory implements LiveHistory {
  private readonly js: JetStreamClient;

  constructor(nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  async span(): Promise<{ first: number; last: number }> {
    const { state } = await (await this.js.streams.get(TOWNHALL_STREAM)).info();
    // An empty stream says first_seq 0 when new, last_seq + 1 once its messages aged out.
    return { first: state.messages === 0 ? state.last_seq + 1 : state.first_seq, last: state.last_seq };
  }

  async *replay(eventId: string, after: number, upTo: number): AsyncGenerator<LiveMessage> {
    if (after >= upTo) return;
    const consumer = await this.js.consumers.get(TOWNHALL_STREAM, {
      filter_subjects: TOWNHALL_SUBJECTS,
      opt_start_seq: after + 1,
      inactive_threshold: REPLAY_INACTIVE_MS,
    });
    try {
      // Everything up to upTo may have aged out of the stream: then there is nothing to wait for.
      if ((await consumer.info(true)).num_pending === 0) return;
      // No more prefetched than the replay can use: it stops at upTo.
      const messages = await consumer.consume({ max_messages: Math.min(REPLAY_BATCH, upTo - after) });
      try {
        for await (const message of messages) {
          const payload = message.string();
          // Most of the stream is about other events: skip them without parsing.
          const live = payload.includes(eventId)
            ? decodeLiveMessage(message.seq, message.subject, payload)
            : undefined;
          if (live?.eventId === eventId) yield live;
          if (message.seq >= upTo || message.info.pending === 0) return;
        }
      } finally {
        await messages.close();
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  }
}

import { jetstream, jetstreamManager, type Consumer, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_STREAM, TOWNHALL_SUBJECTS } from '@townhall/contracts';
import type { Logger } from '@townhall/platform';
import type { LiveHub } from './live-hub.js';
import { decodeLiveMessage } from './live-message.js';

export interface LiveFeedOptions {
  nc: NatsConnection;
  hub: LiveHub;
  logger: Logger;
  /** Pause before following the stream again after it could not be read. Default 2 s. */
  retryMs?: number;
}

const BATCH = 256;
/**
 * How long one pull waits. The client also uses it as its heartbeat (half of it) and as the
 * longest pause between its checks of the consumer after NATS comes back (a random wait up to
 * this): with the default 30 s, live streams could stall for half a minute after a NATS restart.
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * The one JetStream consumer of a gateway process: an ordered consumer on `townhall.>` that
 * feeds the LiveHub, however many clients are connected. It starts right after the stream's
 * last sequence (a start sequence, not "deliver new", so the hub knows its exact position and
 * a reset of the consumer before the first message cannot rewind to the stream's start). The
 * client recreates an ordered consumer from the last sequence it saw when NATS comes back; if
 * the consumer fails for good (the stream is missing or deleted), it is followed again from
 * the hub's position after a pause. The gateway never creates the stream: its publishers do.
 */
export class LiveFeed {
  private consumer: Consumer | undefined;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly options: LiveFeedOptions) {}

  start(): void {
    this.running ??= this.run();
  }

  /** Stops the consumer and waits for the message being dispatched. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.messages?.close();
    await this.running;
    // Ordered consumers are ephemeral; deleting it now spares the server the inactivity wait.
    await this.consumer?.delete().catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopped) {
      try {
        await this.follow();
      } catch (error) {
        if (this.stopped) break;
        this.failures += 1;
        // The first failure is worth a warning; a stream that is still missing after that is not news.
        const log = this.failures === 1 ? logger.warn.bind(logger) : logger.debug.bind(logger);
        log({ err: error, failures: this.failures }, 'live stream cannot read the TOWNHALL stream; retrying');
      }
      if (!this.stopped) await this.pause(this.options.retryMs ?? 2_000);
    }
  }

  private async follow(): Promise<void> {
    const { nc, hub, logger } = this.options;
    if (hub.position === undefined) {
      const info = await (await jetstreamManager(nc)).streams.info(TOWNHALL_STREAM);
      hub.startAt(info.state.last_seq);
    }
    // A consumer that failed for good is of no further use; the server would drop it after 5 minutes.
    await this.consumer?.delete().catch(() => undefined);
    const from = (hub.position ?? 0) + 1;
    const consumer = await jetstream(nc).consumers.get(TOWNHALL_STREAM, {
      filter_subjects: TOWNHALL_SUBJECTS,
      opt_start_seq: from,
    });
    this.consumer = consumer;
    const messages = await consumer.consume({ max_messages: BATCH, expires: PULL_EXPIRES_MS });
    this.messages = messages;
    if (this.stopped) await messages.close();
    this.failures = 0;
    logger.info({ from }, 'live stream is following the TOWNHALL stream');
    for await (const message of messages) {
      hub.see(message.subject, () => message.string());
      hub.receive(message.seq, () => decodeLiveMessage(message.seq, message.subject, message.string()));
    }
    if (!this.stopped) throw new Error('the live stream consumer ended');
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

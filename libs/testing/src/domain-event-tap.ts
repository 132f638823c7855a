import type { NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { TOWNHALL_STREAM, TOWNHALL_SUBJECTS, type CloudEvent } from '@townhall/contracts';
import { connectAs, type TestNats } from './nats-users.js';
import { waitFor } from './ports.js';

/**
 * Reads the TOWNHALL JetStream stream from a moment on, as a consumer of domain events
 * would, and keeps what it saw. Ordered consumer: nothing to clean up on the server.
 */
export class DomainEventTap {
  private constructor(
    /** Every domain event seen so far, in stream order. */
    readonly received: CloudEvent[],
    private readonly nc: NatsConnection,
    private readonly messages: ConsumerMessages,
    private readonly pump: Promise<void>,
  ) {}

  /** Reads as the gateway does (its NATS user reads the stream through consumers that keep no place). */
  static async start(nats: TestNats, subjects: string[], since: Date = new Date()): Promise<DomainEventTap> {
    const nc = await connectAs(nats, 'auth-gateway');
    // One subject filters on the server; several need NATS 2.10 (this machine has 2.9), so
    // the tap then reads all of townhall.> and keeps the matching ones.
    const consumer = await jetstream(nc).consumers.get(TOWNHALL_STREAM, {
      filter_subjects: subjects.length === 1 ? subjects[0]! : TOWNHALL_SUBJECTS,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
    });
    const messages = await consumer.consume();
    const received: CloudEvent[] = [];
    const pump = (async () => {
      for await (const message of messages) {
        if (subjects.some((pattern) => subjectMatches(pattern, message.subject)))
          received.push(message.json<CloudEvent>());
      }
    })();
    return new DomainEventTap(received, nc, messages, pump);
  }

  /** Events about one aggregate (CloudEvents `subject`), in arrival order. */
  about(subject: string): CloudEvent[] {
    return this.received.filter((event) => event.subject === subject);
  }

  async waitFor(
    description: string,
    predicate: (events: CloudEvent[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<CloudEvent[]> {
    return waitFor(
      description,
      async () => (predicate(this.received) ? this.received : undefined),
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    await this.messages.close();
    await this.pump.catch(() => undefined);
    await this.nc.close();
  }
}

/** NATS subject matching: `*` is one token, a final `>` one or more. */
function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return have.length > i;
    if (want[i] !== '*' && want[i] !== have[i]) return false;
  }
  return want.length === have.length;
}

import type { CloudEvent } from '@townhall/contracts';
import type { Logger } from '../logger.js';
import { readDomainEvent, type DomainEventReading } from '../outbox/domain-event-reader.js';
import { subjectMatches } from '../outbox/subjects.js';
import type { Subscription } from '../outbox/subscription.js';
import type { DomainEventPublisher } from '../outbox/publisher.js';

/** One domain event in the log: what a JetStream message of the TOWNHALL stream carries. */
export interface LoggedEvent {
  seq: number;
  /** The CloudEvent id (what de-duplication is keyed on). */
  id: string;
  /** The CloudEvent type, which is also its subject in distributed mode. */
  subject: string;
  payload: string;
}

export interface InProcessEventLogOptions {
  /** How many recent events are kept for replay and de-duplication. Default 10,000. */
  retain?: number;
  /** The first sequence number. Default: the boot time in microseconds (see below). */
  firstSeq?: number;
}

/**
 * Standalone mode's stand-in for the TOWNHALL stream, in memory: a sequence-numbered log of
 * domain events with JetStream's guarantees where they matter here.
 * - Publishing an event id already in the log adds nothing (JetStream's duplicate window).
 * - Durable subscribers get every event once it is published, one at a time each, in order, read
 *   as the NATS consumer reads it (readDomainEvent: data its type's schema refuses is dropped).
 *   publish() resolves only when every matching durable subscriber has handled the event, and
 *   rejects if one failed: the outbox relay then keeps the event and publishes it again later,
 *   and only the subscribers that have not handled it get it again. Nothing in flight is lost
 *   when the process stops: what no subscriber finished is still unpublished in an outbox.
 * - Followers (the gateway's live stream) see every new event, in order, with its sequence.
 * Sequences start at the boot time in microseconds, so they keep growing across restarts and a
 * Last-Event-ID from before a restart never points past the log's end. Only `retain` recent
 * events are kept: the live stream resumes within them.
 */
export class InProcessEventLog implements DomainEventPublisher {
  private readonly retain: number;
  private readonly events: LoggedEvent[] = [];
  private readonly seqById = new Map<string, number>();
  private readonly durables = new Map<string, DurableSubscriber>();
  private readonly followers = new Set<(event: LoggedEvent) => void>();
  private nextSeq: number;

  constructor(options: InProcessEventLogOptions = {}) {
    this.retain = options.retain ?? 10_000;
    this.nextSeq = options.firstSeq ?? Date.now() * 1_000;
  }

  /** The sequence of the oldest event retained (the next one to be logged while none is). */
  get firstSeq(): number {
    return this.events[0]?.seq ?? this.nextSeq;
  }

  /** The sequence of the last event logged (the one before `firstSeq` while none is). */
  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? this.nextSeq - 1;
  }

  async publish(event: CloudEvent): Promise<void> {
    const logged = this.append(event);
    const waiting = [...this.durables.values()].filter((durable) => durable.wants(logged.subject));
    if (waiting.length === 0) return;
    // Read once, as the NATS consumer reads it (readDomainEvent), for every durable it goes to.
    const reading = readDomainEvent(event);
    const results = await Promise.allSettled(waiting.map((durable) => durable.deliver(event, reading)));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw new Error(`A subscriber failed on ${event.type} ${event.id}`, { cause: failed.reason });
  }

  /** Registers durable subscribers (by name, like JetStream durables); `stop()` waits for what they handle. */
  subscribe(logger: Logger, subscriptions: Subscription[]): { stop(): Promise<void> } {
    const added = subscriptions.map((subscription) => {
      if (this.durables.has(subscription.durable))
        throw new Error(`durable ${subscription.durable} is subscribed already`);
      const durable = new DurableSubscriber(subscription, logger);
      this.durables.set(subscription.durable, durable);
      return durable;
    });
    return {
      stop: async () => {
        for (const durable of added) this.durables.delete(durable.name);
        await Promise.all(added.map((durable) => durable.idle()));
      },
    };
  }

  /** Calls `listener` with every event logged from now on, in order; returns the unsubscribe. */
  follow(listener: (event: LoggedEvent) => void): () => void {
    this.followers.add(listener);
    return () => this.followers.delete(listener);
  }

  /** The retained events with `after < seq <= upTo`, in order. */
  *between(after: number, upTo: number): Generator<LoggedEvent> {
    let index = this.firstIndexAfter(after);
    for (; index < this.events.length; index++) {
      const event = this.events[index]!;
      if (event.seq > upTo) return;
      yield event;
    }
  }

  private append(event: CloudEvent): LoggedEvent {
    const known = this.seqById.get(event.id);
    if (known !== undefined) {
      const index = this.firstIndexAfter(known - 1);
      const existing = this.events[index];
      if (existing?.seq === known) return existing;
    }
    const logged: LoggedEvent = {
      seq: this.nextSeq++,
      id: event.id,
      subject: event.type,
      payload: JSON.stringify(event),
    };
    this.events.push(logged);
    this.seqById.set(event.id, logged.seq);
    if (this.events.length > this.retain) {
      const dropped = this.events.shift()!;
      if (this.seqById.get(dropped.id) === dropped.seq) this.seqById.delete(dropped.id);
    }
    for (const listener of this.followers) listener(logged);
    return logged;
  }

  /** Binary search: the index of the first retained event with seq > after. */
  private firstIndexAfter(after: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle]!.seq <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** One durable subscription: handles its events one at a time and remembers what it handled. */
class DurableSubscriber {
  private readonly handled = new Set<string>();
  private readonly order: string[] = [];
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly subscription: Subscription,
    private readonly logger: Logger,
    private readonly remember = 10_000,
  ) {}

  get name(): string {
    return this.subscription.durable;
  }

  wants(subject: string): boolean {
    return this.subscription.subjects.some((pattern) => subjectMatches(pattern, subject));
  }

  /**
   * `reading` is the event as readDomainEvent read it. What no handler can take is passed over,
   * not failed: a failed publish would be published again, and fail again, forever.
   */
  deliver(event: CloudEvent, reading: DomainEventReading): Promise<void> {
    const run = this.tail.then(async () => {
      if (this.handled.has(event.id)) return;
      if (reading.outcome === 'malformed')
        this.logger.error(
          { durable: this.name, eventId: event.id, type: event.type, problem: reading.problem },
          'dropping a malformed domain event',
        );
      try {
        if (reading.outcome === 'read') await this.subscription.handle(reading.event);
      } catch (error) {
        this.logger.warn(
          { err: error, durable: this.name, eventId: event.id, type: event.type },
          'domain event handler failed; the event is published again later',
        );
        throw error;
      }
      this.handled.add(event.id);
      this.order.push(event.id);
      if (this.order.length > this.remember) this.handled.delete(this.order.shift()!);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  idle(): Promise<unknown> {
    return this.tail;
  }
}

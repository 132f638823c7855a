import type { DomainEvent, DomainEventOf, DomainEventTypeOf } from '@townhall/contracts';
import { recordDeclaration, type GateProvider } from './handler-declarations.js';

export interface OnDomainEventOptions {
  /**
   * The durable consumer's name, `<service>-<what it keeps>`, shared by the service's replicas.
   * JetStream keeps the consumer's place in the stream under it: a new name starts over from the
   * stream's first event, so a name stays once deployed.
   */
  durable: string;
  /**
   * The method takes what has arrived at once (up to CONSUMER_BATCH events, in stream order),
   * typically in one transaction (claimEventsOnce). If it throws, each event is handed to it again
   * alone, so one bad event fails only itself. Standalone mode hands over one event at a time.
   */
  batch?: boolean;
  /**
   * With `batch`: how long a batch waits for more events after its first (default 0: only what
   * has already arrived). A few milliseconds of lag buy one call, and one transaction, for many
   * events on a busy stream: for a consumer whose effect nobody waits for (counts, webhooks).
   */
  gatherMs?: number;
  /**
   * A provider of the service that is a ConsumerGate: while it is closed, the consumer pulls
   * nothing (NATS delivers it nothing; JetStream keeps its place), and once it opens, it takes up
   * every event since, in order. For a consumer that only matters while something wants its work
   * (webhooks without any subscription). Standalone mode's in-process consumers ignore it.
   */
  gate?: GateProvider;
}

/** What a consumer of `Topic` is handed: one event, or with `batch` what has arrived at once. */
type Handed<Topic extends string, Batch extends boolean> = Batch extends true
  ? Array<DomainEventOf<Topic>>
  : DomainEventOf<Topic>;

/**
 * Nothing more to require of a method that takes what its consumer is handed; otherwise a property
 * the method's descriptor lacks, whose name says what is wrong (the compiler's error names it).
 */
type Accepts<M, Topic extends string, Batch extends boolean> = [DomainEventTypeOf<Topic>] extends [never]
  ? { 'the topic matches no type of domainEventCatalog': Topic }
  : M extends (argument: infer Taken) => Promise<void>
    ? [Handed<Topic, Batch>] extends [Taken]
      ? [Taken] extends [Batch extends true ? readonly DomainEvent[] : DomainEvent]
        ? unknown
        : { 'the method must take domain events (DomainEventOf<topic>), not untyped CloudEvents': Taken }
      : { 'the method must take the events of its topic (DomainEventOf<topic>)': Handed<Topic, Batch> }
    : { 'the method must take one argument and return a Promise<void>': M };

type ConsumerDecorator<Topic extends string, Batch extends boolean> = <M>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M> & Accepts<M, Topic, Batch>,
) => void;

/**
 * Marks a method as a durable consumer of the domain events of `topic`: a type of
 * domainEventCatalog (`townhall.ticket.issued`) or a NATS wildcard over them
 * (`townhall.ticket.>`); a topic that matches none does not compile (and fails the start). The
 * method takes `DomainEventOf<topic>` (with `batch`, an array of them), checked by the compiler:
 * each event's `data` was parsed by the catalog's schema of its type before the method runs (one
 * that does not parse is logged and dropped, never handed over). The platform starts the
 * consumer once the service listens and stops it first. Delivery is at least once and in stream
 * order per consumer: the event is acknowledged when the method resolves and comes again later
 * if it throws, so the method makes its effect once with claimEventOnce in the effect's
 * transaction, its claim key the durable's name. One decorator is one consumer; a method may
 * carry several (one topic each), taking the events of every one.
 */
export function OnDomainEvent<Topic extends string>(
  topic: Topic,
  options: OnDomainEventOptions & { batch: true },
): ConsumerDecorator<Topic, true>;
export function OnDomainEvent<Topic extends string>(
  topic: Topic,
  options: OnDomainEventOptions & { batch?: false; gatherMs?: never },
): ConsumerDecorator<Topic, false>;
export function OnDomainEvent(topic: string, options: OnDomainEventOptions) {
  return (target: object, key: string | symbol): void =>
    recordDeclaration(target, key, {
      kind: 'consumer',
      topic,
      durable: options.durable,
      batch: options.batch ?? false,
      gatherMs: options.gatherMs ?? 0,
      gate: options.gate,
    });
}

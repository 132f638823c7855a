import type { CloudEvent } from '@townhall/contracts';
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

type OneAtATime = (event: CloudEvent) => Promise<void>;
type InBatches = (events: CloudEvent[]) => Promise<void>;
type MethodDecorator<T> = <M extends T>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Marks a method as a durable consumer of the domain events of `topic`: a type of
 * domainEventCatalog (`townhall.ticket.issued`) or a NATS wildcard over them
 * (`townhall.ticket.>`); a topic that matches none fails the start. The platform starts the
 * consumer once the service listens and stops it first. Delivery is at least once and in stream
 * order per consumer: the event is acknowledged when the method resolves and comes again later
 * if it throws, so the method makes its effect once with claimEventOnce in the effect's
 * transaction. One decorator is one consumer; a method may carry several (one topic each).
 */
export function OnDomainEvent(
  topic: string,
  options: OnDomainEventOptions & { batch: true },
): MethodDecorator<InBatches>;
export function OnDomainEvent(
  topic: string,
  options: OnDomainEventOptions & { batch?: false; gatherMs?: never },
): MethodDecorator<OneAtATime>;
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

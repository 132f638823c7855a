import type { NatsConnection } from '@nats-io/transport-node';
import type { DomainEvent } from '@townhall/contracts';
import type { Logger } from '../logger.js';
import type { ConsumerGate } from './consumer-gate.js';
import { consumeDomainEvents } from './consumer.js';
import { readDomainEvent } from './domain-event-reader.js';

/**
 * One durable consumer as a service declares it (@OnDomainEvent), whichever transport runs it.
 * Its handlers take domain events already read (readDomainEvent): the transport parses each
 * event's data before it hands it over, and drops one that does not parse.
 */
export interface Subscription {
  durable: string;
  subjects: string[];
  handle: (event: DomainEvent) => Promise<void>;
  /**
   * Optional: the events that have already arrived (up to CONSUMER_BATCH, in stream order) in
   * one call, typically one transaction (claimEventsOnce): a busy stream then costs a transaction
   * per batch instead of per event. If it throws, each event is handled again alone with
   * `handle`, so one bad event fails only itself. Standalone mode calls `handle` only.
   */
  handleBatch?: (events: DomainEvent[]) => Promise<void>;
  /** With `handleBatch`: how long a batch waits for more events after its first (default 0). */
  gatherMs?: number;
  /** While closed, the consumer pulls nothing (NATS only: in-process consumers ignore it). */
  gate?: ConsumerGate;
}

/** Starts one durable consumer per subscription; `stop()` stops them all. */
export async function consumeSubscriptions(
  nc: NatsConnection,
  logger: Logger,
  subscriptions: Subscription[],
): Promise<{ stop(): Promise<void> }> {
  const consumers = await Promise.all(
    subscriptions.map(({ durable, subjects, handle, handleBatch, gatherMs, gate }) =>
      consumeDomainEvents({
        nc,
        durable,
        subjects,
        logger,
        read: readDomainEvent,
        handle,
        gate,
        ...(handleBatch && { handleBatch, gatherMs }),
      }),
    ),
  );
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
}

// Transactional outbox (docs/architecture.md "The shape"): a state change and its domain event commit together;
// a relay publishes the event to JetStream afterwards; consumers dedupe on the event id.
export {
  outboxMigrationSql,
  outboxAnnounceFunction,
  domainEvent,
  appendToOutbox,
  claimEventOnce,
  claimEventsOnce,
  freshEventsCte,
} from './outbox.js';
export { outboxTablesV1 } from './outbox-tables-v1.js';
export { outboxTablesV2 } from './outbox-tables-v2.js';
export { outboxTablesV3, undoOutboxTablesV3 } from './outbox-tables-v3.js';
export { claimKeysV1, undoClaimKeysV1, claimFormerKeyFunction, dropClaimFormerKey } from './claim-keys-v1.js';
export {
  JetStreamPublisher,
  awaitTownhallStream,
  ensureTownhallStream,
  type DomainEventPublisher,
  type JetStreamPublisherOptions,
} from './publisher.js';
export { OutboxRelay, type OutboxRelayOptions } from './relay.js';
export {
  consumeDomainEvents,
  CONSUMER_BATCH,
  type DomainEventConsumer,
  type DomainEventConsumerOptions,
} from './consumer.js';
export { consumeSubscriptions, type Subscription } from './subscription.js';
export { subjectMatches } from './subjects.js';
export { readDomainEvent, type DomainEventReading } from './domain-event-reader.js';
export type { ConsumerGate } from './consumer-gate.js';
export * from './outbox-writer.js';

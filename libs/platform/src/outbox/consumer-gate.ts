/**
 * Whether a durable consumer should pull now (OnDomainEventOptions.gate). Closed, the consumer
 * stops pulling once the batch in hand is handled; JetStream keeps its place, so opening again
 * takes up every event since, in stream order. Nothing is skipped: a gate only defers work.
 */
export interface ConsumerGate {
  readonly isOpen: boolean;
  /** Calls `listener` whenever isOpen changes; returns the unsubscribe. */
  onGateChange(listener: (isOpen: boolean) => void): () => void;
}

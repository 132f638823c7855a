import type { DestinationPolicy } from '@townhall/platform/outbound';
import type { RetryPolicy } from './delivery/retry-schedule.js';

/** The webhooks service's settings (SETTINGS), read from its configuration once. */
export interface WebhooksSettings {
  destinations: DestinationPolicy;
  retry: RetryPolicy;
  /** How long a receiver has to answer 2xx (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How often each replica looks for due deliveries (WEBHOOK_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** The most subscriptions one agent holds at once (WEBHOOKS_PER_AGENT_LIMIT). */
  subscriptionsPerAgent: number;
  /** Deliveries one replica attempts at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Whether other replicas' subscription changes arrive by LISTEN/NOTIFY (WEBHOOK_LISTEN). */
  listen: boolean;
}

import { metricsRegistry } from '@townhall/platform/service';
import { Counter, Histogram } from 'prom-client';

/** Every delivery attempt, by what it led to (`delivered`, `retrying`, `given_up`). */
export const webhookAttempts = new Counter({
  name: 'townhall_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (delivered, retrying, given_up)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** How long receivers take (resolving their name included), whatever they answered. */
export const webhookAttemptDuration = new Histogram({
  name: 'townhall_webhook_attempt_duration_seconds',
  help: 'Webhook delivery attempts: from resolving the host to the answer (or the timeout)',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Domain events the fan-out saw: `passed` over in memory (no subscription takes their type), or `recorded`. */
export const fanOutEvents = new Counter({
  name: 'townhall_webhook_fanout_events_total',
  help: 'Domain events seen by the webhook fan-out: passed over in memory (no subscription takes the type) or recorded',
  labelNames: ['path'] as const,
  registers: [metricsRegistry],
});

import { counter, histogram } from '@townhall/platform/service';

/** Every delivery attempt, by what it led to (`delivered`, `retrying`, `given_up`). */
export const webhookAttempts = counter(
  'townhall_webhook_attempts_total',
  'Webhook delivery attempts, by outcome (delivered, retrying, given_up)',
  ['outcome'],
);

/** How long receivers take (resolving their name included), whatever they answered. */
export const webhookAttemptDuration = histogram(
  'townhall_webhook_attempt_duration_seconds',
  'Webhook delivery attempts: from resolving the host to the answer (or the timeout)',
  { buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
);

/** Domain events the fan-out saw: `passed` over in memory (no subscription takes their type), or `recorded`. */
export const fanOutEvents = counter(
  'townhall_webhook_fanout_events_total',
  'Domain events seen by the webhook fan-out: passed over in memory (no subscription takes the type) or recorded',
  ['path'],
);

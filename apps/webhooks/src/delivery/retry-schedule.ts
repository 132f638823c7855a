/** The longest wait between two attempts at one delivery. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1_000;
/** How long a delivery is retried after the domain event reached the service, by default. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1_000;

export interface RetryPolicy {
  /** The wait after the first failed attempt (WEBHOOK_RETRY_BASE_MS). */
  baseMs: number;
  /** How long after its creation a delivery is still retried (WEBHOOK_RETRY_WINDOW_MS). */
  windowMs: number;
}

/**
 * The wait after the `attempts`-th failed attempt: the base, then twice as long each time, at
 * most an hour. With the 5 s default: 5 s, 10 s, 20 s ... 42 min 40 s, then hourly.
 */
export function retryDelayMs(attempts: number, baseMs: number): number {
  const doublings = Math.max(0, attempts - 1);
  // 2^40 already exceeds any cap: no Infinity, no overflow.
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(doublings, 40));
}

/**
 * How long to wait before the next attempt after the `attempts`-th one failed, or null to give
 * up: when that attempt would come later than the window after the delivery was created.
 */
export function nextRetryInMs(
  attempts: number,
  createdAt: Date,
  now: Date,
  policy: RetryPolicy,
): number | null {
  const delay = retryDelayMs(attempts, policy.baseMs);
  return now.getTime() + delay > createdAt.getTime() + policy.windowMs ? null : delay;
}

/**
 * When each attempt happens, from the first (0), if every one fails at once: the schedule the
 * product documents (docs/product.md "Webhooks").
 */
export function retrySchedule(policy: RetryPolicy): number[] {
  const times = [0];
  const createdAt = new Date(0);
  for (;;) {
    const last = times.at(-1)!;
    const wait = nextRetryInMs(times.length, createdAt, new Date(last), policy);
    if (wait === null) return times;
    times.push(last + wait);
  }
}

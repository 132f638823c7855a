import {
  MAX_RETRY_DELAY_MS,
  nextRetryInMs,
  retryDelayMs,
  retrySchedule,
  RETRY_WINDOW_MS,
} from './retry-schedule.js';

const SECOND = 1_000;
const HOUR = 3_600_000;

describe('the retry schedule', () => {
  it('waits the base, then twice as long each time, at most an hour', () => {
    expect([1, 2, 3, 4, 5].map((attempts) => retryDelayMs(attempts, 5 * SECOND))).toEqual([
      5 * SECOND,
      10 * SECOND,
      20 * SECOND,
      40 * SECOND,
      80 * SECOND,
    ]);
    expect(retryDelayMs(10, 5 * SECOND)).toBe(2_560 * SECOND);
    expect(retryDelayMs(11, 5 * SECOND)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(1_000, 5 * SECOND)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(3, 100)).toBe(400);
  });

  it('retries for 24 hours with the default base, then gives up', () => {
    const times = retrySchedule({ baseMs: 5 * SECOND, windowMs: RETRY_WINDOW_MS });
    expect(times.slice(0, 4)).toEqual([0, 5 * SECOND, 15 * SECOND, 35 * SECOND]);
    expect(times.at(-1)).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(times.at(-1)! + MAX_RETRY_DELAY_MS).toBeGreaterThan(RETRY_WINDOW_MS);
    // 10 doubling waits (5 s ... 42 min 40 s) take 85 min; then hourly until the day is over.
    expect(times[10]! - times[9]!).toBe(2_560 * SECOND);
    expect(new Set(times.slice(11).map((time, index) => time - times[10 + index]!))).toEqual(new Set([HOUR]));
    expect(times).toHaveLength(33);
  });

  it('gives up when the next attempt would fall beyond the window', () => {
    const createdAt = new Date('2030-01-01T00:00:00Z');
    const policy = { baseMs: 5 * SECOND, windowMs: RETRY_WINDOW_MS };
    expect(nextRetryInMs(1, createdAt, createdAt, policy)).toBe(5 * SECOND);
    const late = new Date(createdAt.getTime() + RETRY_WINDOW_MS - 30 * 60_000);
    expect(nextRetryInMs(20, createdAt, late, policy)).toBeNull();
    expect(nextRetryInMs(2, createdAt, late, policy)).toBe(10 * SECOND);
  });
});

import { AddressLimits, MemoryAddressCounters, type AddressLimitConfig } from './address-limits.js';

const CONFIG: AddressLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 5,
  AUTH_FAILURES_PER_ADDRESS: 3,
  AUTH_FAILURE_WINDOW_SECONDS: 60,
  AUTH_FAILURE_BLOCK_SECONDS: 300,
};

describe('AddressLimits (in memory)', () => {
  it('refuses an address past its signed requests per second, and no other address', async () => {
    const limits = new AddressLimits(CONFIG, 'test');
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await limits.admit('ip:198.51.100.1'));
    expect(answers.slice(0, 5)).toEqual(Array(5).fill(undefined));
    expect(answers[5]).toEqual({ reason: 'rate', limit: 5, retryAfterSeconds: 1 });
    expect(await limits.admit('ip:198.51.100.2')).toBeUndefined();
  });

  it('blocks an address for AUTH_FAILURE_BLOCK_SECONDS once it failed more than AUTH_FAILURES_PER_ADDRESS times', async () => {
    const limits = new AddressLimits({ ...CONFIG, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 0 }, 'test');
    for (let i = 0; i < 3; i++) await limits.failed('ip:198.51.100.3');
    expect(await limits.admit('ip:198.51.100.3')).toBeUndefined();
    await limits.failed('ip:198.51.100.3');
    const refusal = await limits.admit('ip:198.51.100.3');
    expect(refusal).toMatchObject({ reason: 'blocked', failures: 3, windowSeconds: 60 });
    expect(refusal?.retryAfterSeconds).toBeGreaterThan(295);
    expect(refusal?.retryAfterSeconds).toBeLessThanOrEqual(300);
    expect(await limits.admit('ip:198.51.100.4')).toBeUndefined();
  });

  it('is off with both settings at 0', () => {
    const limits = new AddressLimits(
      { ...CONFIG, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 0, AUTH_FAILURES_PER_ADDRESS: 0 },
      'test',
    );
    expect(limits.enabled).toBe(false);
  });
});

describe("MemoryAddressCounters (the Redis script's twin: standalone mode and the insurance)", () => {
  const rules = { bucket: true, threshold: 3, windowMs: 60_000, blockMs: 300_000 };

  it("keeps a bucket's second from the address's first request: [first, first + 1 s)", async () => {
    let now = 10_000;
    const counters = new MemoryAddressCounters(rules, () => now);
    expect((await counters.admit('ip:a')).spent).toEqual({ count: 1, msLeft: 1_000 });
    now = 10_999;
    expect((await counters.admit('ip:a')).spent).toEqual({ count: 2, msLeft: 1 });
    now = 11_000;
    expect((await counters.admit('ip:a')).spent).toEqual({ count: 1, msLeft: 1_000 });
    expect((await counters.admit('ip:b')).spent).toEqual({ count: 1, msLeft: 1_000 });
  });

  it('blocks from the failure that crossed the threshold for the block time, then forgets', async () => {
    let now = 0;
    const counters = new MemoryAddressCounters(rules, () => now);
    for (let i = 1; i <= 3; i++) {
      now = i * 1_000;
      expect(await counters.fail('ip:a')).toEqual({ count: i, msLeft: 60_000 - (i - 1) * 1_000 });
    }
    now = 4_000;
    expect(await counters.fail('ip:a')).toEqual({ count: 4, msLeft: 300_000 });
    now = 303_999;
    expect((await counters.admit('ip:a')).failures).toEqual({ count: 4, msLeft: 1 });
    now = 304_000;
    expect((await counters.admit('ip:a')).failures).toEqual({ count: 0, msLeft: 0 });
    expect(await counters.fail('ip:a')).toEqual({ count: 1, msLeft: 60_000 });
  });

  it('spends nothing of a bucket that is off, and reads the failures all the same', async () => {
    const counters = new MemoryAddressCounters({ ...rules, bucket: false }, () => 0);
    await counters.fail('ip:a');
    expect(await counters.admit('ip:a')).toEqual({
      spent: { count: 0, msLeft: 0 },
      failures: { count: 1, msLeft: 60_000 },
    });
  });
});

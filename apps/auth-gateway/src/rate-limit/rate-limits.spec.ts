import { jest } from '@jest/globals';
import { createClient, type RedisClientType } from 'redis';
import { randomUUID } from 'node:crypto';
import { MemoryNonceStore, type NonceStore } from '../auth/nonce-store.js';
import {
  RateLimits,
  WRITE_RESERVE_SECONDS,
  type RateLimitConfig,
  type RateLimitKind,
} from './rate-limits.js';

const CONFIG: RateLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_WRITES_PER_SECOND: 3,
  RATE_LIMIT_WRITE_BURST: 5,
  RATE_LIMIT_READS_PER_SECOND: 4,
};

/** `times` signed requests of one agent, each a fresh nonce claimed with its windows, as the gateway does. */
async function spend(
  limits: RateLimits,
  store: NonceStore,
  kind: RateLimitKind,
  agent: string,
  times: number,
) {
  const decisions = [];
  for (let i = 0; i < times; i++) {
    const claim = await store.claim(agent, randomUUID(), limits.windowsOf(kind, agent));
    if (!claim.claimed) throw new Error('a fresh nonce was refused');
    decisions.push(limits.decide(kind, claim.counts));
  }
  return decisions;
}

async function spendReads(limits: RateLimits, address: string, times: number) {
  const decisions = [];
  for (let i = 0; i < times; i++) decisions.push(await limits.consumeRead(address));
  return decisions;
}

describe('RateLimits (windows counted with the nonce claim, in memory)', () => {
  let store: MemoryNonceStore;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-03-01T12:00:00Z') });
    store = new MemoryNonceStore();
  });
  afterEach(() => jest.useRealTimers());

  it('allows the rate, then the burst reserve, then answers over-limit with the time to wait', async () => {
    const limits = new RateLimits(CONFIG, 'test');
    const decisions = await spend(limits, store, 'write', 'alice', 7);
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, true, true, true, false, false]);
    // Remaining counts the second's own quota only: the reserve is never announced.
    expect(decisions.map((d) => d?.remaining)).toEqual([2, 1, 0, 0, 0, 0, 0]);
    expect(decisions[0]).toEqual({
      kind: 'write',
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 1,
      policy: '3;w=1;burst=5',
    });
    expect(decisions[6]).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });

    // Another agent has a budget of its own.
    expect((await spend(limits, store, 'write', 'bob', 1))[0]).toMatchObject({ allowed: true, remaining: 2 });

    // The next second brings the rate back, but the reserve only after WRITE_RESERVE_SECONDS.
    jest.advanceTimersByTime(1_000);
    expect((await spend(limits, store, 'write', 'alice', 4)).map((d) => d?.allowed)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    jest.advanceTimersByTime(WRITE_RESERVE_SECONDS * 1_000);
    expect((await spend(limits, store, 'write', 'alice', 6)).map((d) => d?.allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('limits reads per subject with no burst, and keeps reads and writes apart', async () => {
    const limits = new RateLimits(CONFIG, 'test');
    const reads = await spendReads(limits, 'ip:203.0.113.9', 5);
    expect(reads.map((d) => d?.allowed)).toEqual([true, true, true, true, false]);
    expect(reads[0]).toMatchObject({ limit: 4, remaining: 3, policy: '4;w=1' });
    const signedReads = await spend(limits, store, 'read', 'alice', 5);
    expect(signedReads.map((d) => d?.allowed)).toEqual([true, true, true, true, false]);
    expect(signedReads[4]).toMatchObject({ kind: 'read', limit: 4, remaining: 0, policy: '4;w=1' });
    expect((await spend(limits, store, 'write', 'alice', 1))[0]).toMatchObject({ allowed: true });
  });

  it('turns a kind off with 0, and has no burst when the burst equals the rate', async () => {
    const limits = new RateLimits(
      { ...CONFIG, RATE_LIMIT_READS_PER_SECOND: 0, RATE_LIMIT_WRITE_BURST: 3 },
      'test',
    );
    expect(limits.limits('read')).toBe(false);
    expect(await limits.consumeRead('ip:203.0.113.9')).toBeUndefined();
    expect(limits.windowsOf('read', 'alice')).toEqual([]);
    expect(limits.decide('read', [])).toBeUndefined();
    const writes = await spend(limits, store, 'write', 'alice', 4);
    expect(writes.map((d) => d?.allowed)).toEqual([true, true, true, false]);
    expect(writes[0]?.policy).toBe('3;w=1');
    expect(new RateLimits({ ...CONFIG, RATE_LIMIT_WRITES_PER_SECOND: 0 }, 'test').limits('write')).toBe(
      false,
    );
  });
});

describe('RateLimits on a Redis that cannot answer', () => {
  let redis: RedisClientType;

  beforeAll(() => {
    // Nothing listens on port 1: the client never becomes ready, as while Redis is down.
    redis = createClient({
      url: 'redis://127.0.0.1:1',
      disableOfflineQueue: true,
      socket: { reconnectStrategy: false },
    });
    redis.on('error', () => undefined);
    redis.connect().catch(() => undefined);
  });
  afterAll(async () => {
    if (redis.isOpen) await redis.close();
  });

  it('falls back to the per-process insurance for public reads: served, and still limited', async () => {
    const limits = new RateLimits(CONFIG, 'test', redis);
    const reads = await spendReads(limits, 'ip:203.0.113.9', 5);
    expect(reads.map((d) => d?.allowed)).toEqual([true, true, true, true, false]);
  });
});

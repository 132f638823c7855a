import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { waitFor } from '@townhall/testing';
import type { RedisClientType } from 'redis';
import { MemoryNonceStore, RedisNonceStore, type NonceStore } from '../src/auth/nonce-store.js';
import { RateLimits, type RateLimitConfig, type RateLimitKind } from '../src/rate-limit/rate-limits.js';
import { counting, ReplicasOnRedis } from './fixtures.js';

const CONFIG: RateLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_WRITES_PER_SECOND: 3,
  RATE_LIMIT_WRITE_BURST: 5,
  RATE_LIMIT_READS_PER_SECOND: 4,
};

describe('nonce claims and rate limits on the real Redis, in one round trip', () => {
  // It sends SCRIPT FLUSH: on a server of its own.
  const redis = new ReplicasOnRedis({ ownServer: true });
  const { environment } = redis;
  const namespace = `townhall:${environment}:ratelimit:http://127.0.0.1`;
  let clients: RedisClientType[];

  beforeAll(async () => {
    clients = await redis.connect('rate-limits-test');
  });
  afterAll(() => redis.close());

  async function spend(
    limits: RateLimits[],
    stores: NonceStore[],
    kind: RateLimitKind,
    agent: string,
    times: number,
  ) {
    const decisions = [];
    for (let i = 0; i < times; i++) {
      const claim = await stores[i % stores.length]!.claim(
        agent,
        randomUUID(),
        limits[i % limits.length]!.windowsOf(kind, agent),
      );
      if (!claim.claimed) throw new Error('a fresh nonce was refused');
      decisions.push(limits[i % limits.length]!.decide(kind, claim.counts));
    }
    return decisions;
  }

  it('gives two replicas (two clients) one budget, in keys that expire with their window', async () => {
    const limits = clients.map((client) => new RateLimits(CONFIG, namespace, client));
    const stores = clients.map((client) => new RedisNonceStore(client, environment));
    const agent = `alice-${randomUUID()}`;
    const decisions = await spend(limits, stores, 'write', agent, 8);
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(decisions.map((d) => d?.remaining)).toEqual([2, 1, 0, 0, 0, 0, 0, 0]);
    expect(decisions[0]).toMatchObject({ limit: 3, remaining: 2, resetSeconds: 1, policy: '3;w=1;burst=5' });

    const reads = [];
    for (let i = 0; i < 5; i++) reads.push(await limits[i % 2]!.consumeRead('ip:203.0.113.9'));
    expect(reads.map((d) => d?.allowed)).toEqual([true, true, true, true, false]);

    const redis = clients[0]!;
    const own = `${namespace}:write:agent:{${agent}}`;
    expect(Number(await redis.get(own))).toBe(8);
    expect(await redis.pTTL(own)).toBeLessThanOrEqual(1_000);
    expect(await redis.pTTL(`${namespace}:write-reserve:agent:{${agent}}`)).toBeGreaterThan(1_000);
  });

  it('claims a nonce once; a replay is refused and spends nothing of the agent budget', async () => {
    const limits = new RateLimits(CONFIG, namespace, clients[0]);
    for (const store of [new RedisNonceStore(clients[0]!, environment), new MemoryNonceStore()]) {
      const agent = `bob-${randomUUID()}`;
      const nonce = randomUUID();
      const first = await store.claim(agent, nonce, limits.windowsOf('write', agent));
      expect(first).toEqual({ claimed: true, counts: [{ consumed: 1, msLeft: expect.any(Number) }] });
      for (let i = 0; i < 20; i++)
        expect(await store.claim(agent, nonce, limits.windowsOf('write', agent))).toEqual({ claimed: false });
      // The victim's budget is untouched by the 20 replays: its next request is its second.
      const next = await store.claim(agent, randomUUID(), limits.windowsOf('write', agent));
      expect(next.claimed && next.counts[0]!.consumed).toBe(2);
      // Another agent may use the same nonce.
      expect((await store.claim(`carol-${randomUUID()}`, nonce)).claimed).toBe(true);
    }
  });

  it('claims 200 nonces racing on two replicas: each nonce once, each counted once', async () => {
    const stores = clients.map((client) => new RedisNonceStore(client, environment));
    const limits = new RateLimits({ ...CONFIG, RATE_LIMIT_READS_PER_SECOND: 1_000 }, namespace, clients[0]);
    const agent = `dave-${randomUUID()}`;
    const nonces = Array.from({ length: 100 }, () => randomUUID());
    // Every nonce sent by both replicas at once: 200 claims, 100 winners.
    const claims = await Promise.all(
      nonces.flatMap((nonce) =>
        stores.map((store) => store.claim(agent, nonce, limits.windowsOf('read', agent))),
      ),
    );
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(100);
    const counted = claims.flatMap((claim) => (claim.claimed ? claim.counts.map((c) => c.consumed) : []));
    expect(counted.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('makes one call to Redis per claim (EVALSHA), loading the script again after SCRIPT FLUSH', async () => {
    const { client, calls } = counting(clients[0]!);
    const store = new RedisNonceStore(client, environment);
    const limits = new RateLimits(CONFIG, namespace, client);
    const agent = `erin-${randomUUID()}`;
    await store.claim(agent, randomUUID(), limits.windowsOf('write', agent)); // loads the script
    calls.length = 0;
    // The client's own command timeout is off: no uncancellable AbortSignal.timeout per command.
    const signals = jest.spyOn(AbortSignal, 'timeout');
    for (let i = 0; i < 10; i++) await store.claim(agent, randomUUID(), limits.windowsOf('write', agent));
    expect(calls).toEqual(Array.from({ length: 10 }, () => 'evalSha'));
    expect(signals).not.toHaveBeenCalled();
    signals.mockRestore();

    // A restarted Redis has no scripts: NOSCRIPT, then the store loads it and the claim goes on.
    await clients[1]!.scriptFlush();
    calls.length = 0;
    const claim = await store.claim(agent, randomUUID(), limits.windowsOf('write', agent));
    expect(claim.claimed).toBe(true);
    expect(calls).toEqual(['evalSha', 'scriptLoad', 'evalSha']);
  });

  it('fails a claim and falls back for a public read within the 1 s command timeout when Redis hangs', async () => {
    const [redis, pauser] = clients as [RedisClientType, RedisClientType];
    const store = new RedisNonceStore(redis, environment);
    const limits = new RateLimits(CONFIG, namespace, redis);
    // Warm both scripts, so that what follows is the commands themselves.
    await store.claim(`frank-${randomUUID()}`, randomUUID());
    await limits.consumeRead('ip:198.51.100.7');
    // Redis stops answering every client for 2.5 s (connected, silent: a hang, not a refusal).
    await pauser.sendCommand(['CLIENT', 'PAUSE', '2500', 'ALL']);
    const started = Date.now();
    await expect(store.claim(`frank-${randomUUID()}`, randomUUID())).rejects.toThrow(/within 1000 ms/);
    const claimTook = Date.now() - started;
    const read = await limits.consumeRead('ip:198.51.100.7');
    const readTook = Date.now() - started - claimTook;
    expect(read).toMatchObject({ allowed: true }); // the insurance counted it
    expect(claimTook).toBeGreaterThanOrEqual(950);
    expect(claimTook).toBeLessThan(1_500);
    expect(readTook).toBeLessThan(1_500);
    // Once Redis answers again, so do the claims.
    await waitFor('redis answering again', async () =>
      (await store.claim(`frank-${randomUUID()}`, randomUUID()).catch(() => undefined))?.claimed
        ? true
        : undefined,
    );
  });
});

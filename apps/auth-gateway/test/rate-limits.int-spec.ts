import { randomUUID } from 'node:crypto';
import { createLogger } from '@townhall/platform';
import { REDIS_URL, waitFor } from '@townhall/testing';
import type { RedisClientType } from 'redis';
import { connectRedis } from '../src/auth/redis.js';
import { RateLimits, type RateLimitConfig } from '../src/rate-limit/rate-limits.js';

const CONFIG: RateLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_WRITES_PER_SECOND: 3,
  RATE_LIMIT_WRITE_BURST: 5,
  RATE_LIMIT_READS_PER_SECOND: 4,
};

/** rate-limiter-flexible on the real Redis through the gateway's own node-redis 6 client. */
describe('RateLimits on Redis', () => {
  let clients: RedisClientType[];
  const namespace = `townhall:test:ratelimit:${randomUUID()}`;

  beforeAll(async () => {
    const logger = createLogger('rate-limits-test', 'silent');
    clients = [connectRedis(REDIS_URL, logger), connectRedis(REDIS_URL, logger)];
    // The client fails fast while connecting (no offline queue): wait until both are ready.
    await waitFor('redis clients ready', async () => (clients.every((c) => c.isReady) ? true : undefined));
  });
  afterAll(async () => {
    const keys = await clients[0]!.keys(`${namespace}:*`);
    if (keys.length > 0) await clients[0]!.del(keys);
    await Promise.all(clients.map((client) => client.close()));
  });

  it('gives two replicas (two clients) one budget, in keys that expire with their window', async () => {
    const replicas = clients.map((client) => new RateLimits(CONFIG, namespace, client));
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(await replicas[i % 2]!.consume('write', 'agent:alice'));
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(decisions[0]).toMatchObject({ limit: 3, remaining: 2, resetSeconds: 1, policy: '3;w=1;burst=5' });

    const reads = [];
    for (let i = 0; i < 5; i++) reads.push(await replicas[i % 2]!.consume('read', 'ip:203.0.113.9'));
    expect(reads.map((d) => d?.allowed)).toEqual([true, true, true, true, false]);

    const redis = clients[0]!;
    expect(Number(await redis.get(`${namespace}:write:agent:alice`))).toBeGreaterThanOrEqual(4);
    expect(await redis.pTTL(`${namespace}:write:agent:alice`)).toBeLessThanOrEqual(1_000);
    expect(await redis.pTTL(`${namespace}:write-reserve:agent:alice`)).toBeGreaterThan(1_000);
  });
});

import type { RedisClientType } from 'redis';
import { AddressLimits, type AddressLimitConfig } from '../src/rate-limit/address-limits.js';
import { ReplicasOnRedis } from './fixtures.js';

const CONFIG: AddressLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 6,
  AUTH_FAILURES_PER_ADDRESS: 4,
  AUTH_FAILURE_WINDOW_SECONDS: 60,
  AUTH_FAILURE_BLOCK_SECONDS: 120,
};

describe('per-address limits on the real Redis, shared by two replicas', () => {
  const redis = new ReplicasOnRedis();
  const { environment } = redis;
  const namespace = `townhall:${environment}:ratelimit:http://127.0.0.1`;
  let clients: RedisClientType[];

  beforeAll(async () => {
    clients = await redis.connect('address-limits-test');
  });
  afterAll(() => redis.close());

  it('one bucket per address across replicas', async () => {
    const replicas = clients.map((client) => new AddressLimits(CONFIG, namespace, client));
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await replicas[i % 2]!.admit('ip:203.0.113.1'));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(6);
    expect(answers[6]).toMatchObject({ reason: 'rate', limit: 6 });
  });

  it('failures counted on one replica block the address on the other, with the time left', async () => {
    const replicas = clients.map(
      (client) =>
        new AddressLimits({ ...CONFIG, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 0 }, namespace, client),
    );
    for (let i = 0; i < 5; i++) await replicas[0]!.failed('ip:2001:db8:1:2::/64');
    const refusal = await replicas[1]!.admit('ip:2001:db8:1:2::/64');
    expect(refusal).toMatchObject({ reason: 'blocked', failures: 4, windowSeconds: 60 });
    expect(refusal!.retryAfterSeconds).toBeGreaterThan(115);
    expect(refusal!.retryAfterSeconds).toBeLessThanOrEqual(120);
    expect(await replicas[1]!.admit('ip:2001:db8:1:3::/64')).toBeUndefined();
  });

  it('the failure that crossed the threshold on another replica, its block not yet written: blocked for the whole block', async () => {
    const replica = new AddressLimits(
      { ...CONFIG, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 0 },
      namespace,
      clients[1]!,
    );
    // What the other replica's count left in Redis between its increment and its block: past the
    // threshold, with the window's time left.
    await clients[0]!.set(`${namespace}:auth-failures:ip:198.51.100.7`, '5', { PX: 60_000 });
    const refusal = await replica.admit('ip:198.51.100.7');
    expect(refusal).toMatchObject({ reason: 'blocked' });
    expect(refusal!.retryAfterSeconds).toBeGreaterThan(115);
    expect(refusal!.retryAfterSeconds).toBeLessThanOrEqual(120);
  });
});

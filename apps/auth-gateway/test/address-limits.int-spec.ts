import { randomUUID } from 'node:crypto';
import { waitFor } from '@townhall/testing';
import type { RedisClientType } from 'redis';
import {
  AddressLimits,
  MemoryAddressCounters,
  RedisAddressCounters,
  type AddressCounters,
  type AddressLimitConfig,
} from '../src/rate-limit/address-limits.js';
import { counting, ReplicasOnRedis } from './fixtures.js';

const CONFIG: AddressLimitConfig = {
  TOWNHALL_ENV: 'development',
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 6,
  AUTH_FAILURES_PER_ADDRESS: 4,
  AUTH_FAILURE_WINDOW_SECONDS: 60,
  AUTH_FAILURE_BLOCK_SECONDS: 120,
};

/** The counters' rules for CONFIG, with `blockMs` of their own where a test waits for a block's end. */
const RULES = { bucket: true, threshold: 4, windowMs: 60_000, blockMs: 120_000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client address of its own for each test: counters in the twins' stores outlive a test. */
const newAddress = () => `ip:203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`;

describe('per-address limits on the real Redis, shared by two replicas', () => {
  const redis = new ReplicasOnRedis();
  const { environment } = redis;
  const namespace = `townhall:${environment}:ratelimit:http://127.0.0.1`;
  let clients: RedisClientType[];

  beforeAll(async () => {
    clients = await redis.connect('address-limits-test');
  });
  afterAll(() => redis.close());

  describe.each([
    [
      'the Redis script, two replicas',
      (rules = RULES): AddressCounters[] =>
        clients.map((client) => new RedisAddressCounters(client, namespace, rules)),
    ],
    [
      'its memory twin',
      (rules = RULES): AddressCounters[] => {
        const memory = new MemoryAddressCounters(rules);
        return [memory, memory];
      },
    ],
  ])('one protocol: %s', (_, twins) => {
    it("spends a bucket of one second from the address's first request, whole again once that second ends", async () => {
      const [a, b] = twins();
      const address = newAddress();
      const spent = [];
      for (let i = 0; i < 8; i++) spent.push((await [a!, b!][i % 2]!.admit(address)).spent);
      expect(spent.map((s) => s.count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // One window: its time left counts down from the first request's second, never starts again.
      expect(spent[0]!.msLeft).toBeGreaterThan(900);
      expect(spent[0]!.msLeft).toBeLessThanOrEqual(1_000);
      for (let i = 1; i < spent.length; i++)
        expect(spent[i]!.msLeft).toBeLessThanOrEqual(spent[i - 1]!.msLeft);
      // Near the second's end, still that second (300 ms of margin for a busy machine); once it
      // ended, the first point of the next. Its exact edges: the memory twin's unit spec.
      await sleep(spent[7]!.msLeft - 300);
      const late = (await b!.admit(address)).spent;
      expect(late.count).toBe(9);
      await sleep(late.msLeft + 30);
      const next = (await a!.admit(address)).spent;
      expect(next.count).toBe(1);
      expect(next.msLeft).toBeGreaterThan(900);
      // Another address has a bucket of its own.
      expect((await b!.admit(newAddress())).spent.count).toBe(1);
    });

    it('counts failures in their window; the one past the threshold starts the block, the count and its time left one record', async () => {
      const [a, b] = twins();
      const address = newAddress();
      const failures = [];
      for (let i = 0; i < 6; i++) failures.push(await [a!, b!][i % 2]!.fail(address));
      expect(failures.map((f) => f.count)).toEqual([1, 2, 3, 4, 5, 6]);
      for (const within of failures.slice(0, 4)) expect(within.msLeft).toBeLessThanOrEqual(60_000);
      // The fifth crossed: blocked for the whole block from then, and later failures leave it be.
      expect(failures[4]!.msLeft).toBe(120_000);
      expect(failures[5]!.msLeft).toBeGreaterThan(119_000);
      expect(failures[5]!.msLeft).toBeLessThanOrEqual(120_000);
      const standing = await b!.admit(address);
      expect(standing.failures.count).toBe(6);
      expect(standing.failures.msLeft).toBeGreaterThan(119_000);
      // An address with no failures reads none, and the read counts none.
      expect((await a!.admit(newAddress())).failures).toEqual({ count: 0, msLeft: 0 });
    });

    it('failures racing on both replicas: the count exact, the block whole from the crossing on', async () => {
      const [a, b] = twins();
      const address = newAddress();
      const counted = await Promise.all(Array.from({ length: 40 }, (_, i) => [a!, b!][i % 2]!.fail(address)));
      expect(counted.map((c) => c.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      // Each failure within the threshold saw the window; every one past it the block, from the
      // crossing on (none saw a window that the block had not replaced yet), which stays whole.
      for (const within of counted.filter((c) => c.count <= 4))
        expect(within.msLeft).toBeLessThanOrEqual(60_000);
      for (const past of counted.filter((c) => c.count > 4)) {
        expect(past.msLeft).toBeGreaterThan(119_000);
        expect(past.msLeft).toBeLessThanOrEqual(120_000);
      }
      const standing = (await a!.admit(address)).failures;
      expect(standing.count).toBe(40);
      expect(standing.msLeft).toBeGreaterThan(119_000);
    });

    it('a block ends after its time, and the next failure starts a new window', async () => {
      const [a, b] = twins({ ...RULES, blockMs: 300 });
      const address = newAddress();
      for (let i = 0; i < 5; i++) await a!.fail(address);
      expect((await b!.admit(address)).failures.count).toBe(5);
      await sleep(350);
      expect((await b!.admit(address)).failures).toEqual({ count: 0, msLeft: 0 });
      const next = await a!.fail(address);
      expect(next.count).toBe(1);
      expect(next.msLeft).toBeGreaterThan(59_000);
    });
  });

  it('one bucket per address across replicas', async () => {
    const replicas = clients.map((client) => new AddressLimits(CONFIG, namespace, client));
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await replicas[i % 2]!.admit('ip:203.0.113.1'));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(6);
    expect(answers[6]).toEqual({ reason: 'rate', limit: 6, retryAfterSeconds: 1 });
    // A hash tag on the address: both keys of one admit are in one Redis Cluster slot.
    expect(await clients[0]!.get(`${namespace}:signed-address:{ip:203.0.113.1}`)).toBe('8');
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

  it('a block another replica counted is learnt in one admit, then answered from memory: no more points spent', async () => {
    const replicas = clients.map((client) => new AddressLimits(CONFIG, namespace, client));
    const address = 'ip:198.51.100.7';
    for (let i = 0; i < 5; i++) await replicas[0]!.failed(address);
    // The other replica learns it from Redis (one admit), then answers from memory.
    expect(await replicas[1]!.admit(address)).toMatchObject({ reason: 'blocked' });
    const bucket = `${namespace}:signed-address:{${address}}`;
    const spent = Number(await clients[0]!.get(bucket));
    for (let i = 0; i < 20; i++)
      expect(await replicas[1]!.admit(address)).toMatchObject({ reason: 'blocked' });
    expect(Number(await clients[0]!.get(bucket))).toBe(spent);
  });
});

describe('per-address limits on a redis-server of their own: SCRIPT FLUSH, a restart, Redis away', () => {
  // It sends SCRIPT FLUSH and stops the server: on a server of its own.
  const redis = new ReplicasOnRedis({ ownServer: true });
  const { environment } = redis;
  const namespace = `townhall:${environment}:ratelimit:http://127.0.0.1`;
  let clients: RedisClientType[];

  beforeAll(async () => {
    clients = await redis.connect('address-limits-own-server-test');
  });
  afterAll(() => redis.close());

  const bothReady = () =>
    waitFor('both clients ready', async () => (clients.every((c) => c.isReady) ? true : undefined));

  it('one EVALSHA per signed request before the verify, the script loaded again after SCRIPT FLUSH', async () => {
    const { client, calls } = counting(clients[0]!);
    const limits = new AddressLimits(
      { ...CONFIG, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: 1_000 },
      namespace,
      client,
    );
    const address = 'ip:192.0.2.10';
    await limits.admit(address); // loads the script
    calls.length = 0;
    for (let i = 0; i < 10; i++) expect(await limits.admit(address)).toBeUndefined();
    expect(calls).toEqual(Array.from({ length: 10 }, () => 'evalSha'));

    await clients[1]!.scriptFlush();
    calls.length = 0;
    expect(await limits.admit(address)).toBeUndefined();
    expect(calls).toEqual(['evalSha', 'scriptLoad', 'evalSha']);
    // Still the same second's bucket: 12 spent, nothing counted twice.
    expect(await clients[1]!.get(`${namespace}:signed-address:{${address}}`)).toBe('12');
  });

  it('Redis hanging: the memory insurance answers within the command timeout', async () => {
    const limits = new AddressLimits(CONFIG, namespace, clients[0]);
    await limits.admit('ip:192.0.2.20'); // the script is loaded
    await clients[1]!.sendCommand(['CLIENT', 'PAUSE', '2000', 'ALL']);
    const started = Date.now();
    expect(await limits.admit('ip:192.0.2.20')).toBeUndefined();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(1_500);
    await sleep(1_200); // the pause's end
  });

  it('Redis away: each replica keeps both limits in memory; once Redis is back (restarted, without scripts or keys), the shared counts again', async () => {
    const replicas = clients.map((client) => new AddressLimits(CONFIG, namespace, client));
    await redis.ownServer.stop();
    await waitFor('both clients see Redis away', async () =>
      clients.every((c) => !c.isReady) ? true : undefined,
    );

    // The bucket, per replica: 6 a second on each.
    const address = 'ip:192.0.2.30';
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await replicas[0]!.admit(address));
    expect(answers.slice(0, 6)).toEqual(Array(6).fill(undefined));
    expect(answers[6]).toEqual({ reason: 'rate', limit: 6, retryAfterSeconds: 1 });
    expect(await replicas[1]!.admit(address)).toBeUndefined();

    // The block, per replica, for the whole block time.
    const forger = 'ip:192.0.2.31';
    for (let i = 0; i < 5; i++) await replicas[0]!.failed(forger);
    const refusal = await replicas[0]!.admit(forger);
    expect(refusal).toMatchObject({ reason: 'blocked', failures: 4 });
    expect(refusal!.retryAfterSeconds).toBe(120);

    await redis.ownServer.restart();
    await bothReady();
    const later = 'ip:192.0.2.32';
    expect(await replicas[0]!.admit(later)).toBeUndefined();
    expect(await replicas[1]!.admit(later)).toBeUndefined();
    expect(await clients[0]!.get(`${namespace}:signed-address:{${later}}`)).toBe('2');
  });
});

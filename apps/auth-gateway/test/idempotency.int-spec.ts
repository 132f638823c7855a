import { createHash, randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import {
  MemoryIdempotencyStore,
  RedisIdempotencyStore,
  type Begun,
  type IdempotencyStore,
  type StoredResponse,
} from '../src/idempotency/idempotency-store.js';
import { ReplicasOnRedis } from './fixtures.js';

const AUDIENCE = 'http://127.0.0.1:1';
const ANSWER: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-payment-response': 'eyJ9' },
  body: Buffer.from('{"id":"t1"}').toString('base64'),
};

/** Keys per agent of these stores. */
const CAP = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function claimed(store: IdempotencyStore, agent: string, key: string, inFlightMs = 5_000) {
  const begun = await store.begin(agent, key, 'f1', inFlightMs);
  if (begun.outcome !== 'claimed') throw new Error(`not claimed: ${begun.outcome}`);
  return begun.held;
}

describe('Idempotency-Key claims on the real Redis: one protocol, two replicas, as in memory', () => {
  // It sends SCRIPT FLUSH: on a server of its own.
  const redis = new ReplicasOnRedis({ ownServer: true });
  const { environment } = redis;
  let clients: RedisClientType[];

  beforeAll(async () => {
    clients = await redis.connect('idempotency-test');
  });
  afterAll(() => redis.close());

  /** Two replicas' stores: two Redis clients, or (memory) one process's store twice. */
  const modes: Array<[string, () => IdempotencyStore[]]> = [
    ['redis', () => clients.map((client) => new RedisIdempotencyStore(client, environment, AUDIENCE, CAP))],
    [
      'memory',
      () => {
        const store = new MemoryIdempotencyStore({ keysPerAgent: CAP });
        return [store, store];
      },
    ],
  ];

  describe.each(modes)('%s', (_mode, replicas) => {
    it('lets one of 100 racing requests on two replicas claim a key; the others see it in flight', async () => {
      const stores = replicas();
      const agent = `alice-${randomUUID()}`;
      const begun = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stores[i % 2]!.begin(agent, 'race', 'f1', 5_000)),
      );
      expect(begun.filter((b) => b.outcome === 'claimed')).toHaveLength(1);
      expect(begun.filter((b) => b.outcome === 'in_flight')).toHaveLength(99);
    });

    it('replays the kept answer on the other replica; another request with the key is a mismatch', async () => {
      const [a, b] = replicas();
      const agent = `bob-${randomUUID()}`;
      const held = await claimed(a!, agent, 'k');
      expect(await b!.begin(agent, 'k', 'f2', 5_000)).toEqual({ outcome: 'mismatch' });
      expect(await a!.complete(held, ANSWER, 60_000)).toBe(true);
      expect(await b!.begin(agent, 'k', 'f1', 5_000)).toEqual({ outcome: 'replay', response: ANSWER });
      expect(await b!.begin(agent, 'k', 'f2', 5_000)).toEqual({ outcome: 'mismatch' });
      // Scoped to the agent.
      expect((await b!.begin(`other-${agent}`, 'k', 'f2', 5_000)).outcome).toBe('claimed');
    });

    it('lets an agent hold CAP keys, counted atomically across replicas: 100 racing new keys, 10 claimed', async () => {
      const stores = replicas();
      const agent = `erin-${randomUUID()}`;
      const begun = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stores[i % 2]!.begin(agent, `key-${i}`, 'f1', 5_000)),
      );
      const claims = begun.filter((b) => b.outcome === 'claimed');
      expect(claims).toHaveLength(CAP);
      const refused = begun.filter((b) => b.outcome === 'too_many_keys');
      expect(refused).toHaveLength(100 - CAP);
      for (const refusal of refused) {
        expect(refusal.retryAfterMs).toBeGreaterThan(0);
        expect(refusal.retryAfterMs).toBeLessThanOrEqual(5_000);
      }
      // A key given back frees its place; a kept answer holds it (for its keepMs).
      await stores[0]!.release(claims[0]!.held);
      await stores[1]!.complete(claims[1]!.held, ANSWER, 60_000);
      expect((await stores[1]!.begin(agent, 'after-release', 'f1', 5_000)).outcome).toBe('claimed');
      expect((await stores[0]!.begin(agent, 'one-more', 'f1', 5_000)).outcome).toBe('too_many_keys');
      // Another agent is not counted with this one.
      expect((await stores[0]!.begin(`other-${agent}`, 'key-0', 'f1', 5_000)).outcome).toBe('claimed');
    });

    it('frees the places of expired markers', async () => {
      const [a, b] = replicas();
      const agent = `frank-${randomUUID()}`;
      // Long enough that a loaded machine still asks before they expire; waited out from when the last was made.
      const markerMs = 2_000;
      await Promise.all(Array.from({ length: CAP }, (_, i) => claimed(a!, agent, `short-${i}`, markerMs)));
      const allMadeBy = Date.now();
      expect((await b!.begin(agent, 'late', 'f1', 5_000)).outcome).toBe('too_many_keys');
      await sleep(allMadeBy + markerMs + 50 - Date.now());
      expect((await b!.begin(agent, 'late', 'f1', 5_000)).outcome).toBe('claimed');
    });

    it('gives a released key back; a marker that outlived its request expires, and its late answer is dropped', async () => {
      const [a, b] = replicas();
      const agent = `carol-${randomUUID()}`;
      await a!.release(await claimed(a!, agent, 'released'));
      expect((await b!.begin(agent, 'released', 'f1', 5_000)).outcome).toBe('claimed');

      const stale = await claimed(a!, agent, 'crashed', 100);
      await sleep(150);
      const fresh = await claimed(b!, agent, 'crashed');
      expect(await a!.complete(stale, ANSWER, 60_000)).toBe(false);
      await a!.release(stale); // not its key any more: nothing happens
      expect(await a!.begin(agent, 'crashed', 'f1', 5_000)).toEqual<Begun>({ outcome: 'in_flight' });
      expect(await b!.complete(fresh, { ...ANSWER, status: 200 }, 60_000)).toBe(true);
      expect(await a!.begin(agent, 'crashed', 'f1', 5_000)).toMatchObject({
        outcome: 'replay',
        response: { status: 200 },
      });
    });
  });

  it('keeps an answer under a hashed, agent-tagged key for keepMs, and reloads its scripts after SCRIPT FLUSH', async () => {
    const store = new RedisIdempotencyStore(clients[0]!, environment, AUDIENCE);
    const agent = `dave-${randomUUID()}`;
    const key = 'order {42}: pay';
    await store.complete(await claimed(store, agent, key), ANSWER, 60_000);
    const digest = createHash('sha256').update(key).digest('hex');
    const redisKey = `townhall:${environment}:idempotency:${AUDIENCE}:{${agent}}:${digest}`;
    const ttl = await clients[1]!.pTTL(redisKey);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // The agent's index: the key's digest, until it expires; the index itself expires with it.
    const index = `townhall:${environment}:idempotency:${AUDIENCE}:{${agent}}`;
    expect(await clients[1]!.zRange(index, 0, -1)).toEqual([digest]);
    const indexTtl = await clients[1]!.pTTL(index);
    expect(indexTtl).toBeGreaterThan(59_000);
    expect(indexTtl).toBeLessThanOrEqual(60_000);

    await clients[1]!.scriptFlush();
    expect((await store.begin(agent, key, 'f1', 5_000)).outcome).toBe('replay');
    expect((await store.begin(agent, 'next', 'f1', 5_000)).outcome).toBe('claimed');
  });
});

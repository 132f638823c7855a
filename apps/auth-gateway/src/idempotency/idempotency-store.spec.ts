import { MemoryIdempotencyStore, type HeldKey, type StoredResponse } from './idempotency-store.js';

const ANSWER: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', location: '/events/e1' },
  body: Buffer.from('{"id":"e1"}').toString('base64'),
};

describe('MemoryIdempotencyStore (standalone mode)', () => {
  let now = 1_000_000;
  const clock = () => now;

  async function claim(
    store: MemoryIdempotencyStore,
    agent: string,
    key: string,
    fingerprint = 'f1',
    inFlightMs = 1_000,
  ) {
    const begun = await store.begin(agent, key, fingerprint, inFlightMs);
    if (begun.outcome !== 'claimed') throw new Error(`not claimed: ${begun.outcome}`);
    return begun.held;
  }

  it('claims a key once, answers in_flight or mismatch while it runs, then replays what was kept', async () => {
    const store = new MemoryIdempotencyStore(undefined, clock);
    const held = await claim(store, 'alice', 'k1');
    expect(await store.begin('alice', 'k1', 'f1', 1_000)).toEqual({ outcome: 'in_flight' });
    expect(await store.begin('alice', 'k1', 'f2', 1_000)).toEqual({ outcome: 'mismatch' });
    // Another agent's key of the same name is its own.
    expect((await store.begin('bob', 'k1', 'f2', 1_000)).outcome).toBe('claimed');
    expect(await store.complete(held, ANSWER, 60_000)).toBe(true);
    expect(await store.begin('alice', 'k1', 'f1', 1_000)).toEqual({ outcome: 'replay', response: ANSWER });
    expect(await store.begin('alice', 'k1', 'f2', 1_000)).toEqual({ outcome: 'mismatch' });
  });

  it('gives a released key back, and forgets a kept answer after keepMs', async () => {
    const store = new MemoryIdempotencyStore(undefined, clock);
    await store.release(await claim(store, 'alice', 'k2'));
    const held = await claim(store, 'alice', 'k2', 'other');
    await store.complete(held, ANSWER, 60_000);
    now += 59_999;
    expect((await store.begin('alice', 'k2', 'other', 1_000)).outcome).toBe('replay');
    now += 2;
    expect((await store.begin('alice', 'k2', 'f1', 1_000)).outcome).toBe('claimed');
  });

  it('lets the marker of a request that never finished expire; its late answer is then not kept', async () => {
    const store = new MemoryIdempotencyStore(undefined, clock);
    const stale: HeldKey = await claim(store, 'alice', 'k3', 'f1', 500);
    now += 501;
    const fresh = await claim(store, 'alice', 'k3', 'f1', 500);
    expect(await store.complete(stale, ANSWER, 60_000)).toBe(false);
    await store.release(stale);
    expect(await store.begin('alice', 'k3', 'f1', 500)).toEqual({ outcome: 'in_flight' });
    expect(await store.complete(fresh, { ...ANSWER, status: 200 }, 60_000)).toBe(true);
    expect(await store.begin('alice', 'k3', 'f1', 500)).toMatchObject({
      outcome: 'replay',
      response: { status: 200 },
    });
  });

  it('is bounded by keys, bytes and keys per agent, and refuses new keys rather than forget live ones', async () => {
    const store = new MemoryIdempotencyStore({ maxKeys: 3 }, clock);
    for (const key of ['a', 'b', 'c'])
      await store.complete(await claim(store, `agent-${key}`, key), ANSWER, 60_000);
    expect(await store.begin('alice', 'd', 'f1', 1_000)).toEqual({ outcome: 'store_full' });
    // Every kept answer is still there.
    expect((await store.begin('agent-a', 'a', 'f1', 1_000)).outcome).toBe('replay');
    // Once one expires, its place is free.
    now += 60_001;
    expect((await store.begin('alice', 'd', 'f1', 1_000)).outcome).toBe('claimed');

    const small = new MemoryIdempotencyStore({ maxBytes: 2_000 }, clock);
    const big = { ...ANSWER, body: 'x'.repeat(1_500) };
    expect(await small.complete(await claim(small, 'alice', 'first'), big, 60_000)).toBe(true);
    // The second answer does not fit: not kept, and its key is free again.
    expect(await small.complete(await claim(small, 'alice', 'second'), big, 60_000)).toBe(false);
    expect((await small.begin('alice', 'first', 'f1', 1_000)).outcome).toBe('replay');
    expect((await small.begin('alice', 'second', 'f1', 1_000)).outcome).toBe('claimed');
  });

  it('holds at most keysPerAgent keys of one agent, markers included: then too_many_keys until the soonest expires', async () => {
    const store = new MemoryIdempotencyStore({ keysPerAgent: 2 }, clock);
    await store.complete(await claim(store, 'alice', 'k1'), ANSWER, 60_000);
    now += 10_000;
    await claim(store, 'alice', 'k2', 'f1', 5_000);
    expect(await store.begin('alice', 'k3', 'f1', 1_000)).toEqual({
      outcome: 'too_many_keys',
      retryAfterMs: 5_000,
    });
    expect((await store.begin('bob', 'k3', 'f1', 1_000)).outcome).toBe('claimed');
    // The marker expires first (its request died): its place is free.
    now += 5_000;
    const k3 = await claim(store, 'alice', 'k3');
    expect(await store.begin('alice', 'k4', 'f1', 1_000)).toEqual({
      outcome: 'too_many_keys',
      retryAfterMs: 1_000,
    });
    // A key given back frees its place at once.
    await store.release(k3);
    expect((await store.begin('alice', 'k4', 'f1', 1_000)).outcome).toBe('claimed');
  });
});

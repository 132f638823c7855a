import { MemoryNonceStore, NONCE_TTL_SECONDS } from './nonce-store.js';

describe('MemoryNonceStore (standalone mode): bounded by time and size', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('holds at most maxNonces unexpired nonces: then refuses new claims with 503 service.overloaded, and never forgets one early', async () => {
    const store = new MemoryNonceStore(clock, 3);
    for (const nonce of ['n1', 'n2', 'n3'])
      expect(await store.claim('alice', nonce)).toMatchObject({ claimed: true });
    await expect(store.claim('bob', 'n4')).rejects.toMatchObject({ code: 'service.overloaded', status: 503 });
    // Every nonce held is still refused as a replay.
    for (const nonce of ['n1', 'n2', 'n3'])
      expect(await store.claim('alice', nonce)).toEqual({ claimed: false });

    // Once they expire, they are swept and there is room again.
    now += NONCE_TTL_SECONDS * 1000;
    expect(await store.claim('bob', 'n4')).toMatchObject({ claimed: true });
    expect(store.size).toBe(1);
  });
});

import { CachedReadiness } from './cached-readiness.js';

describe('CachedReadiness (the public /readyz)', () => {
  it('runs the checks at most once per second, shared by every caller meanwhile', async () => {
    let now = 0;
    let runs = 0;
    let failing = false;
    const readiness = new CachedReadiness(
      {
        redis: async () => {
          runs += 1;
          if (failing) throw new Error('ECONNREFUSED 127.0.0.1:6379');
        },
      },
      1_000,
      () => now,
    );
    expect(await Promise.all(Array.from({ length: 100 }, () => readiness.ready()))).toEqual(
      Array(100).fill(true),
    );
    expect(runs).toBe(1);
    failing = true;
    now = 999;
    expect(await readiness.ready()).toBe(true);
    expect(runs).toBe(1);
    now = 1_000;
    expect(await readiness.ready()).toBe(false);
    expect(runs).toBe(2);
  });

  it('is not ready once closing, whatever the checks say, and runs them no more', async () => {
    let runs = 0;
    const readiness = new CachedReadiness({ redis: async () => void (runs += 1) });
    expect(await readiness.ready()).toBe(true);
    readiness.close();
    expect(await readiness.ready()).toBe(false);
    expect(runs).toBe(1);
  });
});

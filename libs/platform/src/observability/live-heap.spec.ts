import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Registry } from 'prom-client';
import { observeLiveHeap } from './live-heap.js';

// A full collection on demand (what --expose-gc gives, without starting Node with it).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The gauge, in MB, as a scrape reads it. */
async function gauge(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('townhall_heap_live_bytes')!.get();
  return metric.values[0]!.value / 1_048_576;
}

/** Collects, lets the GC performance entry reach the observer, then reads the gauge. */
async function liveAfterCollection(registry: Registry): Promise<number> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 50));
  return gauge(registry);
}

describe('townhall_heap_live_bytes', () => {
  it('is what the heap keeps after the last full collection, not what is in use since', async () => {
    const registry = new Registry();
    observeLiveHeap(registry);
    const before = await liveAfterCollection(registry);

    const held: { kept?: number[][] } = {
      kept: Array.from({ length: 64 }, () => new Array<number>(65_536).fill(1.5)),
    };
    const holding = await liveAfterCollection(registry);
    expect(holding - before).toBeGreaterThan(25); // 64 x 64 Ki doubles: 32 MB kept
    expect(held.kept?.length).toBe(64);

    delete held.kept;
    const released = await liveAfterCollection(registry);
    expect(holding - released).toBeGreaterThan(25);
    expect(released - before).toBeLessThan(8);
    // Kept since the last full collection: in use now, counted at the next one (the gauge is read
    // before any collection's performance entry can reach the observer).
    const since = Array.from({ length: 32 }, () => new Array<number>(65_536).fill(2.5));
    expect(Math.abs((await gauge(registry)) - released)).toBeLessThan(4);
    expect(since.length).toBe(32);
    expect((await liveAfterCollection(registry)) - released).toBeGreaterThan(12);
  });
});

import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Registry } from 'prom-client';
import { isFullCollection, observeLiveHeap } from './live-heap.js';

// A full collection on demand (what --expose-gc gives, without starting Node with it).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const MB = 1_048_576;
/** The heap in use now, in MB. */
const inUse = () => getHeapStatistics().used_heap_size / MB;

/** The gauge, in MB, as a scrape reads it. */
async function gauge(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('townhall_heap_live_bytes')!.get();
  return metric.values[0]!.value / MB;
}

/**
 * Collects, and gives the heap in use right after (what the gauge should say) and the gauge once
 * that collection's performance entry has reached the observers (called in the order they began
 * observing: the gauge's first). Each is measured in the same run, not against a fixed size: the
 * live heap of a jest worker moves by megabytes between files.
 */
async function afterCollection(registry: Registry): Promise<{ heap: number; gauge: number }> {
  const observed = new Promise<void>((resolve) => {
    const observer = new PerformanceObserver((list) => {
      if (!list.getEntries().some(isFullCollection)) return;
      observer.disconnect();
      resolve();
    });
    observer.observe({ entryTypes: ['gc'] });
  });
  collectGarbage();
  const heap = inUse();
  await observed;
  await new Promise((resolve) => setImmediate(resolve));
  return { heap, gauge: await gauge(registry) };
}

describe('townhall_heap_live_bytes', () => {
  it('is what the heap keeps after the last full collection, not what is in use since', async () => {
    const registry = new Registry();
    observeLiveHeap(registry);
    const before = await afterCollection(registry);
    expect(Math.abs(before.gauge - before.heap)).toBeLessThan(4);

    // 64 x 64 Ki doubles: 32 MB kept.
    const held: { kept?: number[][] } = {
      kept: Array.from({ length: 64 }, () => new Array<number>(65_536).fill(1.5)),
    };
    const holding = await afterCollection(registry);
    expect(holding.heap - before.heap).toBeGreaterThan(16);
    expect(Math.abs(holding.gauge - holding.heap)).toBeLessThan(4);
    expect(held.kept?.length).toBe(64);

    delete held.kept;
    const released = await afterCollection(registry);
    expect(holding.heap - released.heap).toBeGreaterThan(16);
    expect(Math.abs(released.gauge - released.heap)).toBeLessThan(4);

    // Kept since the last full collection: in use now, counted at the next one (the gauge is read
    // before any collection's performance entry can reach the observer).
    const since = Array.from({ length: 32 }, () => new Array<number>(65_536).fill(2.5));
    expect(inUse() - released.heap).toBeGreaterThan(12);
    expect(Math.abs((await gauge(registry)) - released.gauge)).toBeLessThan(4);
    expect(since.length).toBe(32);
    const next = await afterCollection(registry);
    expect(next.gauge - released.gauge).toBeGreaterThan(12);
    expect(Math.abs(next.gauge - next.heap)).toBeLessThan(4);
  });
});

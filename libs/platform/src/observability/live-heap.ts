import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Gauge, type Registry } from 'prom-client';

/**
 * `townhall_heap_live_bytes`: the V8 heap in use right after the process's last full collection
 * (mark-compact), what it really holds. Heap in use at a scrape (`nodejs_heap_size_used_bytes`)
 * also counts garbage not yet collected, and resident memory follows how far V8 lets its heap
 * run ahead between collections (its choice, in steps of tens of MB); this one grows only with
 * what is kept: the figure to watch for a leak. Until the first full collection it is the heap
 * in use now. Read off the GC performance entries prom-client's GC metrics also observe.
 */
export function observeLiveHeap(registry: Registry): Gauge {
  let afterFullCollection: number | undefined;
  const gauge = new Gauge({
    name: 'townhall_heap_live_bytes',
    help: 'V8 heap in use right after the last full (mark-compact) collection; the heap in use before the first',
    registers: [registry],
    collect() {
      this.set(afterFullCollection ?? getHeapStatistics().used_heap_size);
    },
  });
  new PerformanceObserver((list) => {
    if (list.getEntries().some(isFullCollection)) afterFullCollection = getHeapStatistics().used_heap_size;
  }).observe({ entryTypes: ['gc'] });
  return gauge;
}

/** A `gc` entry's detail says which kind of collection it was: a full one (mark-compact)? */
export function isFullCollection(entry: PerformanceEntry): boolean {
  const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } | null };
  return detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

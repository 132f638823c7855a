import type { MessageMeta } from '@townhall/contracts';
import { LRUCache } from 'lru-cache';

/** Reads the values of several keys at once (a map with every key asked for). */
export type ReadMany<V> = (keys: string[], meta: MessageMeta) => Promise<ReadonlyMap<string, V>>;

/**
 * Public reads the pages repeat, kept a short while in this process: the handle on an agent's
 * directory card, a past event's recording. A page asks for all it needs at once; the keys not
 * kept are read together in one `read` (one request for a stage's speakers), each key once however
 * many pages want it meanwhile, and a failed read is not kept (the next page asks again).
 */
export class RecentReads<V extends object> {
  private readonly kept: LRUCache<string, V>;
  /** Keys being read now: a page that wants one meanwhile waits for the same read. */
  private readonly reading = new Map<string, Promise<V>>();

  constructor(
    private readonly read: ReadMany<V>,
    options: { ttlMs: number; max: number },
  ) {
    this.kept = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs });
  }

  /** The value of each key, read now where none is kept (or it is older than the ttl). */
  async of(keys: Iterable<string>, meta: MessageMeta): Promise<Map<string, V>> {
    const unique = [...new Set(keys)];
    const values = new Map<string, V | Promise<V>>();
    const missing: string[] = [];
    for (const key of unique) {
      const value = this.kept.get(key) ?? this.reading.get(key);
      if (value === undefined) missing.push(key);
      else values.set(key, value);
    }
    if (missing.length > 0) {
      const batch = this.read(missing, meta);
      for (const key of missing) {
        const one = batch.then((read) => {
          const value = read.get(key);
          if (value === undefined)
            throw new Error(`the read of ${missing.length} keys did not answer ${key}`);
          this.kept.set(key, value);
          return value;
        });
        this.reading.set(key, one);
        // Whatever the outcome, the key is no longer being read; a failure reaches the awaiting page.
        one.then(
          () => this.reading.delete(key),
          () => this.reading.delete(key),
        );
        values.set(key, one);
      }
    }
    const settled = await Promise.all(unique.map((key) => values.get(key)!));
    return new Map(unique.map((key, index) => [key, settled[index]!]));
  }
}

import type { MessageMeta } from '@townhall/contracts';
import { LRUCache } from 'lru-cache';

/**
 * Public reads the pages repeat, kept a short while in this process: the handle on an agent's
 * directory card, a past event's recording. A page asks for all it needs at once; each one not
 * kept is asked of its service once, however many pages want it meanwhile, and a failed read is
 * not kept (the next page asks again).
 */
export class RecentReads<V extends object> {
  private readonly kept: LRUCache<string, V, MessageMeta>;

  constructor(read: (key: string, meta: MessageMeta) => Promise<V>, options: { ttlMs: number; max: number }) {
    this.kept = new LRUCache<string, V, MessageMeta>({
      max: options.max,
      ttl: options.ttlMs,
      fetchMethod: (key, _stale, { context }) => read(key, context),
    });
  }

  /** The value of each key, read now where none is kept (or it is older than the ttl). */
  async of(keys: Iterable<string>, meta: MessageMeta): Promise<Map<string, V>> {
    const unique = [...new Set(keys)];
    const values = await Promise.all(unique.map((key) => this.kept.fetch(key, { context: meta })));
    return new Map(unique.map((key, index) => [key, values[index]!]));
  }
}

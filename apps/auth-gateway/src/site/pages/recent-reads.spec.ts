import type { MessageMeta } from '@townhall/contracts';
import { RecentReads } from './recent-reads.js';

const meta: MessageMeta = { requestId: 'r', caller: null };

/** Reads `{ key }` for every key asked, recording each batch; `fail` makes the next read throw. */
function reader() {
  const batches: string[][] = [];
  let fail = false;
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const reads = new RecentReads<{ key: string }>(
    async (keys) => {
      batches.push(keys);
      await gate;
      if (fail) throw new Error('directory down');
      return new Map(keys.map((key) => [key, { key }]));
    },
    { ttlMs: 60_000, max: 100 },
  );
  return {
    reads,
    batches,
    failNext: (value: boolean) => (fail = value),
    hold: () => (gate = new Promise((resolve) => (release = resolve))),
    release: () => release(),
  };
}

describe('RecentReads: what the pages share', () => {
  it('reads the keys it does not keep in one batch, each once, and keeps them', async () => {
    const { reads, batches } = reader();
    const first = await reads.of(['a', 'b', 'a'], meta);
    expect([...first.keys()]).toEqual(['a', 'b']);
    await reads.of(['b', 'c'], meta);
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('lets pages that want a key being read wait for the same read', async () => {
    const { reads, batches, hold, release } = reader();
    hold();
    const pages = [reads.of(['x', 'y'], meta), reads.of(['y'], meta), reads.of(['x', 'z'], meta)];
    release();
    const [one, two, three] = await Promise.all(pages);
    expect(batches).toEqual([['x', 'y'], ['z']]);
    expect(two!.get('y')).toBe(one!.get('y'));
    expect(three!.get('x')).toBe(one!.get('x'));
  });

  it('keeps no failure: the page sees it, the next page reads again', async () => {
    const { reads, batches, failNext } = reader();
    failNext(true);
    await expect(reads.of(['k'], meta)).rejects.toThrow('directory down');
    failNext(false);
    expect((await reads.of(['k'], meta)).get('k')).toEqual({ key: 'k' });
    expect(batches).toEqual([['k'], ['k']]);
  });

  it('refuses a read that leaves out a key it was asked for, and keeps nothing of it', async () => {
    const reads = new RecentReads<{ key: string }>(async () => new Map(), { ttlMs: 60_000, max: 10 });
    await expect(reads.of(['lost'], meta)).rejects.toThrow('did not answer lost');
  });
});

import { Directory, DirectoryRoutes, EventRoutes } from '@townhall/contracts';
import { CardReads } from './card-reads.js';

describe('CardReads: signed card reads from memory', () => {
  let now = 0;
  const reads = () => new CardReads({ maxAgeMs: 1_000, now: () => now });
  const asked: string[] = [];
  const ask = (card: string) => async () => {
    asked.push(card);
    return { handle: card };
  };
  beforeEach(() => {
    now = 0;
    asked.length = 0;
  });

  it('serves the getCard route only', () => {
    const cards = reads();
    expect(cards.covers(DirectoryRoutes.getCard)).toBe(true);
    expect(cards.covers(DirectoryRoutes.resolveHandle)).toBe(false);
    expect(cards.covers(EventRoutes.get)).toBe(false);
    expect(DirectoryRoutes.getCard.contract).toBe(Directory.getCard);
  });

  it('asks once, serves from memory until the card changes or its time is up', async () => {
    const cards = reads();
    expect(await cards.read('a', ask('one'))).toEqual({ handle: 'one' });
    expect(await cards.read('a', ask('never'))).toEqual({ handle: 'one' });
    cards.changed('a');
    expect(await cards.read('a', ask('two'))).toEqual({ handle: 'two' });
    now += 1_001;
    expect(await cards.read('a', ask('three'))).toEqual({ handle: 'three' });
    expect(asked).toEqual(['one', 'two', 'three']);
  });

  it('does not keep a reply whose read began before a change of its card', async () => {
    const cards = reads();
    let answer!: (card: unknown) => void;
    const slow = cards.read('a', () => new Promise((resolve) => (answer = resolve)));
    cards.changed('a');
    answer({ handle: 'before the change' });
    expect(await slow).toEqual({ handle: 'before the change' });
    expect(await cards.read('a', ask('after'))).toEqual({ handle: 'after' });
    // Another agent's change does not stop a read of this one from being kept.
    const other = cards.read('b', ask('b1'));
    cards.changed('c');
    await other;
    expect(await cards.read('b', ask('never'))).toEqual({ handle: 'b1' });
  });

  it('keeps no refusal, and passes a read without an agent id straight on', async () => {
    const cards = reads();
    await expect(
      cards.read('a', () => Promise.reject(new Error('directory.card_not_found'))),
    ).rejects.toThrow();
    expect(await cards.read('a', ask('made'))).toEqual({ handle: 'made' });
    expect(await cards.read(undefined, ask('x'))).toEqual({ handle: 'x' });
    expect(await cards.read(undefined, ask('y'))).toEqual({ handle: 'y' });
  });

  it('treats an agent forgotten from its change marks as changed up to the last one forgotten', async () => {
    const cards = new CardReads({ maxAgeMs: 1_000, maxEntries: 1, now: () => now });
    let answer!: (card: unknown) => void;
    const slow = cards.read('a', () => new Promise((resolve) => (answer = resolve)));
    // Five changes of others push a's mark out of the four the cache remembers.
    cards.changed('a');
    for (const agent of ['b', 'c', 'd', 'e', 'f']) cards.changed(agent);
    answer({ handle: 'stale' });
    await slow;
    expect(await cards.read('a', ask('fresh'))).toEqual({ handle: 'fresh' });
  });
});

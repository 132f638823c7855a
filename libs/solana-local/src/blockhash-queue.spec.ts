import { BlockhashQueue } from './blockhash-queue.js';

describe('BlockhashQueue', () => {
  it('keeps a blockhash valid for its lifetime of wall time, then never again', () => {
    const queue = BlockhashQueue.start(60_000, 'first', 1_000);
    expect(queue.slotMs).toBe(400);
    expect(queue.latest()).toEqual({ blockhash: 'first', lastValidBlockHeight: 150n });
    expect(queue.blocksDue(1_399)).toBe(0);
    expect(queue.blocksDue(1_800)).toBe(2);
    queue.advance(2, 'second', 1_800);
    expect(queue.blockHeight).toBe(2);
    expect(queue.latest()).toEqual({ blockhash: 'second', lastValidBlockHeight: 152n });
    expect(queue.isValid('first', 60_999)).toBe(true);
    expect(queue.isValid('first', 61_000)).toBe(false);
    expect(queue.isValid('never', 1_800)).toBe(false);
    // An advance long after drops what expired, and the heights follow the wall time.
    queue.advance(queue.blocksDue(70_000), 'third', 70_000);
    expect(queue.state().entries.map((entry) => entry.blockhash)).toEqual(['third']);
    expect(queue.blockHeight).toBe(172);
  });

  it('shortens blocks for short lifetimes, so the latest blockhash always has time left', () => {
    const queue = BlockhashQueue.start(400, 'first', 0);
    expect(queue.slotMs).toBe(100);
    expect(queue.latest().lastValidBlockHeight).toBe(4n);
    const restored = BlockhashQueue.restore(400, queue.state());
    expect(restored.latest()).toEqual(queue.latest());
  });
});

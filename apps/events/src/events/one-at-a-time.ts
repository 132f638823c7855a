/**
 * Runs the work given for one key one at a time, in the order it came; work for other keys runs
 * alongside. A failed piece of work does not stop the next one. Work that waited longer than
 * `maxWaitMs` for its turn is not run: its caller gets `tooLong()` instead (whoever asked has given
 * up by then, and a change made after that would surprise them). Keys with nothing queued are
 * forgotten, so the map holds only the keys being worked on.
 *
 * The events service queues each event's PATCHes here: they are compare-and-set on the event's
 * version, so n PATCHes at once would otherwise cost up to n(n+1)/2 attempts (each one a
 * capacity decision asked of ticketing) instead of n. Across replicas the compare-and-set still
 * decides; this only keeps one process's PATCHes from racing each other.
 */
export class OneAtATime {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly limits: { maxWaitMs: number; tooLong: () => Error },
    private readonly now: () => number = Date.now,
  ) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const queuedAt = this.now();
    const result = (this.tails.get(key) ?? Promise.resolve()).then(() => {
      if (this.now() - queuedAt > this.limits.maxWaitMs) throw this.limits.tooLong();
      return work();
    });
    const tail = result.then(settled, settled);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** How many keys have work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}

function settled(): void {}

import { LRUCache } from 'lru-cache';

/**
 * The order of changes a read cache has heard of, per key (an event, an agent's card): a read
 * takes a `ticket` before it asks a service, and its reply is kept or served only while its key
 * has not `changedSince` that ticket. Bounded: a key whose mark was forgotten counts as changed
 * at the last mark forgotten, so a forgotten change can only make a reply be asked again.
 */
export class ChangeClock {
  private clock = 0;
  /** The clock of each key's last change. */
  private readonly changedAt: LRUCache<string, number>;
  /** The last change of any key `changedAt` forgot: an unknown key may have changed then. */
  private forgotten = 0;

  constructor(maxKeys: number) {
    this.changedAt = new LRUCache<string, number>({
      max: maxKeys,
      dispose: (clock) => {
        if (clock > this.forgotten) this.forgotten = clock;
      },
    });
  }

  /** Taken before a read is sent to a service. */
  ticket(): number {
    return this.clock;
  }

  /** Something about `key` changed now. */
  changed(key: string): void {
    this.clock += 1;
    this.changedAt.set(key, this.clock);
  }

  /** Whether `key` may have changed after `ticket` was taken. */
  changedSince(key: string, ticket: number): boolean {
    return (this.changedAt.get(key) ?? this.forgotten) > ticket;
  }
}

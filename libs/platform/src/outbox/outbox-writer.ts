import type { CloudEvent, DomainEventVisibility } from '@townhall/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { sqlState } from '../database.js';
import { databaseFaultOf, type DatabaseFault } from '../database-faults.js';
import { appendToOutbox, domainEvent } from './outbox.js';
import type { OutboxRelay } from './relay.js';

const MAX_ATTEMPTS = 4;
/**
 * How long a change waits before its one more attempt after the database went away: long enough
 * for a pool to open a new connection to a server that restarted, short next to a client's
 * timeout. Jittered, so that the requests a restart failed together do not return together.
 */
const FAULT_RETRY_DELAY_MS = 300;

export interface Announcement {
  type: string;
  subject: string;
  data: unknown;
  /** `staff`: for the event's host and moderators only, never on the public live stream. */
  visibility?: DomainEventVisibility | undefined;
}

/**
 * The transactional outbox's writer, how a service changes state: in one transaction that also
 * writes the domain events announcing the change to its outbox (so the two never diverge), after
 * which the relay is woken to publish them at once.
 */
export class OutboxWriter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    private readonly owner: { schema: string; source: string },
  ) {}

  /**
   * Runs `work` in a transaction. A deadlock (40P01) or serialization failure (40001) is
   * Postgres choosing a victim among concurrent transactions, not an error of the request:
   * the whole transaction is run again, a few times, before giving up. A database that went
   * away before the commit was asked for (a restart, a terminated backend) gets one more
   * attempt: that transaction cannot have committed.
   */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    let committing = false;
    return this.attempt(
      () => {
        committing = false;
        return this.dataSource.transaction(async (manager) => {
          const result = await work(manager);
          committing = true;
          return result;
        });
      },
      (fault) => fault === 'refused' || !committing,
    );
  }

  /**
   * Runs one statement that is a transaction of its own (a server-side function called in
   * autocommit, such as ticketing.purchase), again as `run` does when Postgres chose it as a
   * deadlock or serialization victim, or refused it before it could take effect; wakes the
   * relay once it committed. A connection lost while it ran is not retried: it may have committed.
   */
  async runStatement<T>(statement: () => Promise<T>): Promise<T> {
    return this.attempt(statement, (fault) => fault === 'refused');
  }

  private async attempt<T>(
    statement: () => Promise<T>,
    retriesFault: (fault: DatabaseFault) => boolean,
  ): Promise<T> {
    let faultRetried = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await statement();
        this.wakeRelay();
        return result;
      } catch (error) {
        const { code } = sqlState(error);
        if (attempt < MAX_ATTEMPTS && (code === '40P01' || code === '40001')) {
          await sleep(Math.random() * 10 * attempt);
          continue;
        }
        const fault = databaseFaultOf(error);
        if (faultRetried || fault === undefined || !retriesFault(fault)) throw error;
        faultRetried = true;
        await sleep(FAULT_RETRY_DELAY_MS * (0.5 + Math.random()));
      }
    }
  }

  /**
   * The CloudEvents of `events`, built now (ids, times, source) for a server-side function to
   * append with `<schema>.announce($1::jsonb)` in its own transaction (outboxAnnounceFunction),
   * called through `runStatement`, which wakes the relay once that transaction committed.
   */
  prepare(events: Announcement[]): CloudEvent[] {
    return events.map((event) => domainEvent({ source: this.owner.source, ...event }));
  }

  /** Wakes the relay to publish what a committed change wrote to the outbox (`run` and `runStatement` do). */
  wakeRelay(): void {
    this.relay.wake();
  }

  /** Records domain events in the transaction of `manager`. */
  announce(manager: EntityManager, events: Announcement[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return appendToOutbox(
      manager,
      this.owner.schema,
      events.map((event) => domainEvent({ source: this.owner.source, ...event })),
    );
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

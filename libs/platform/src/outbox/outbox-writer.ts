import type { CloudEvent, DomainEventVisibility } from '@townhall/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { sqlState } from '../database.js';
import { databaseFaultOf, type DatabaseFault } from '../database-faults.js';
import { appendToOutbox, domainEvent, eventStamp, type EventStamp } from './outbox.js';
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
 * writes the domain events announcing the change to its outbox (so the two never diverge). Once
 * the transaction has committed, the events it wrote are handed to the relay, which publishes
 * them at once (OutboxRelay.publishCommitted): no statement is spent between a commit and its
 * publish, and what fails is swept up by the relay's passes.
 */
export class OutboxWriter {
  /** The events announced in each running transaction of `run`, published once it commits. */
  private readonly announced = new WeakMap<EntityManager, { events: CloudEvent[]; sweep: boolean }>();

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
   * attempt: that transaction cannot have committed. What `announce` wrote in the attempt that
   * committed is published then.
   */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    let committing = false;
    let written: { events: CloudEvent[]; sweep: boolean } = { events: [], sweep: false };
    const result = await this.attempt(
      () => {
        committing = false;
        return this.dataSource.transaction(async (manager) => {
          written = { events: [], sweep: false };
          this.announced.set(manager, written);
          const result = await work(manager);
          committing = true;
          return result;
        });
      },
      (fault) => fault === 'refused' || !committing,
    );
    this.relay.publishCommitted(written.events);
    if (written.sweep) this.relay.wake();
    return result;
  }

  /**
   * Runs one statement that is a transaction of its own (a server-side function called in
   * autocommit, such as ticketing.purchase), again as `run` does when Postgres chose it as a
   * deadlock or serialization victim, or refused it before it could take effect. A connection
   * lost while it ran is not retried: it may have committed.
   *
   * `committed(result)` names the events (built by `prepare`) that the statement's result says
   * it appended to the outbox; they are published at once. A refusal that wrote nothing names
   * none. A statement whose result says it also appended events it built itself (a waitlist offer
   * accepted in SQL) says so with `sweep(result)`, and the relay runs a pass for those.
   */
  async runStatement<T>(
    statement: () => Promise<T>,
    published: { committed: (result: T) => readonly CloudEvent[]; sweep?: (result: T) => boolean },
  ): Promise<T> {
    const result = await this.attempt(statement, (fault) => fault === 'refused');
    this.relay.publishCommitted(published.committed(result));
    if (published.sweep?.(result)) this.relay.wake();
    return result;
  }

  private async attempt<T>(
    statement: () => Promise<T>,
    retriesFault: (fault: DatabaseFault) => boolean,
  ): Promise<T> {
    let faultRetried = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await statement();
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
   * called through `runStatement`, which publishes those its result says were committed.
   */
  prepare(events: Announcement[]): CloudEvent[] {
    return events.map((event) => domainEvent({ source: this.owner.source, ...event }));
  }

  /** The stamp of an event a server-side function builds itself (outbox.ts `EventStamp`). */
  stamp(): EventStamp {
    return eventStamp(this.owner.source);
  }

  /**
   * Asks for a relay pass once the transaction of `manager` (a `run`) has committed: it ran a
   * server-side function that may have appended events it built itself, which this process
   * cannot publish at once.
   */
  sweepAfterCommit(manager: EntityManager): void {
    const written = this.announced.get(manager);
    if (written) written.sweep = true;
  }

  /** Asks the relay for a pass now: events were appended that no writer publishes itself. */
  wakeRelay(): void {
    this.relay.wake();
  }

  /**
   * Records domain events in the transaction of `manager`; when that is a `run` of this writer,
   * they are published once it commits. In a transaction of someone else's, the relay's polls
   * publish them once they are sweepAfterMs old.
   */
  async announce(manager: EntityManager, events: Announcement[]): Promise<void> {
    if (events.length === 0) return;
    const built = events.map((event) => domainEvent({ source: this.owner.source, ...event }));
    await appendToOutbox(manager, this.owner.schema, built);
    this.announced.get(manager)?.events.push(...built);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

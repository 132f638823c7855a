import type { CloudEvent } from '@townhall/contracts';
import type { DataSource } from 'typeorm';
import type { Logger } from '../logger.js';
import { domainEventsPublished } from '../observability/metrics.js';
import { OutboxTable, type ClaimedRow } from './outbox-table.js';
import type { DomainEventPublisher } from './publisher.js';
import { databaseFaultOf } from '../database-faults.js';
import { contextOf, inSpan, isTracing, outsideAnyTrace, SpanKind } from '../observability/tracing.js';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  schema: string;
  publisher: DomainEventPublisher;
  logger: Logger;
  /** Pause between passes when the outbox was drained. Default 500 ms. */
  pollIntervalMs?: number;
  /** Events claimed per pass. Default 100. */
  batchSize?: number;
  /**
   * How long a claimed batch is reserved for this relay before another may take it, if its holder
   * still has a connection to Postgres. Default 30 s. A claim whose holder has none left (its
   * process crashed or was killed) is taken over at once.
   */
  leaseMs?: number;
  /**
   * How old an unclaimed row must be before a pass that was not asked for it (a poll) takes it:
   * the writing process publishes its own rows at once after commit (publishCommitted), so a
   * younger row is almost always in flight there. Default 2 s.
   */
  sweepAfterMs?: number;
  /** How long published ids wait to be deleted together in one statement. Default 200 ms. */
  markEveryMs?: number;
}

/** A claimed batch's outcome: the rows published (to delete), and the rest, to give back. */
interface Settlement {
  published: string[];
  left: ClaimedRow[];
}

const PRUNE_EVERY_MS = 60_000;
// Publishing stops once this share of the lease is used, so that another relay taking over an
// expired lease does not publish the same events in parallel with this one.
const LEASE_USABLE_SHARE = 0.8;

/**
 * Publishes committed outbox rows to JetStream, at least once, in two ways. The process that
 * committed a change publishes its events at once (publishCommitted: no statement before the
 * publish, every event of a tick in one socket write), then deletes their rows in one DELETE per
 * markEveryMs for all that were acknowledged. Passes sweep up the rest: rows whose immediate
 * publish failed, rows written by a server-side function that built its own events (the writer
 * asks for a pass), and rows of a process that died before publishing.
 *
 * An acknowledged event's row is deleted, not kept: from the PubAck on, the stream is the record
 * (kept 30 days, on a majority of nodes with NATS_STREAM_REPLICAS=3), and nothing reads a
 * published row. So the outbox holds only what is still to publish, and a published event costs
 * one DELETE instead of an UPDATE (a new row version with new index entries) and a later DELETE.
 *
 * A pass never takes a row this process has in flight. No database transaction stays open
 * while publishing: a batch is claimed by one autocommit UPDATE (a lease, so that replicas share
 * the work through SKIP LOCKED), published in seq order, then deleted by an autocommit DELETE.
 * Each claim names its holder (`claimed_by`: the process's application_name, connectionHolder).
 * A crash between claim and delete leaves a claim whose holder is no longer in pg_stat_activity:
 * the next pass of any relay of the schema (another replica's, or the restarted process's) takes
 * it at once, rather than after the lease. What the crashed relay had published already is
 * published again; JetStream's duplicate window drops the copy (same Nats-Msg-Id) and consumers
 * dedupe on the event id anyway. Should a live holder's pool ever have no connection open at that
 * moment, the worst is the same harmless republish.
 */
export class OutboxRelay {
  private readonly table: OutboxTable;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly sweepAfterMs: number;
  private readonly markEveryMs: number;
  /**
   * Rows this process publishes at once after their commit, until their rows are deleted (in
   * flight, or acknowledged and waiting for the delete): passes leave them alone.
   */
  private readonly direct = new Set<string>();
  /** Of those, how many still wait for their acknowledgement. */
  private inFlight = 0;
  /** Committed this turn of the event loop, published together at its end. */
  private committed: CloudEvent[] = [];
  private committing: NodeJS.Immediate | undefined;
  /** Published at once, their rows to be deleted in the next statement. */
  private unmarked: string[] = [];
  private marking: Promise<void> | undefined;
  private markFailing = false;
  private markTimer: NodeJS.Timeout | undefined;
  /** Set by wake(): the next pass also takes rows younger than sweepAfterMs. */
  private sweepAll = true;
  // Each pass chains on the previous one: never two passes at once in this relay.
  private tail: Promise<unknown> = Promise.resolve();
  private running = false;
  private ticking = false;
  private wakeRequested = false;
  private timer: NodeJS.Timeout | undefined;
  private lastPrunedAt = 0;
  private failing = false;
  /** A batch whose outcome is not yet written back: see settle(). */
  private owed: Settlement | undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = new OutboxTable(options.dataSource, options.schema);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.batchSize = options.batchSize ?? 100;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.sweepAfterMs = options.sweepAfterMs ?? 2_000;
    this.markEveryMs = options.markEveryMs ?? 200;
  }

  /** Polls every pollIntervalMs until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /**
   * Runs a pass soon, one that also takes rows written just now: after a commit whose events this
   * process cannot publish itself (a server-side function built them). No-op unless started.
   */
  wake(): void {
    if (!this.running) return;
    this.sweepAll = true;
    if (this.ticking) this.wakeRequested = true;
    else this.schedule(0);
  }

  /**
   * Publishes events whose outbox rows the caller has just committed, at the end of this turn of
   * the event loop: all of them before the first acknowledgement comes back (one socket write for
   * the events of every commit of the turn), each in the trace of the write that made it. An
   * acknowledged event's row is deleted with the next batch of deletes; one that fails is left
   * to a pass (woken at once). Not started (a test's own writer, a stopping process): a pass is
   * woken instead, which is a no-op until the relay starts.
   */
  publishCommitted(events: readonly CloudEvent[]): void {
    if (events.length === 0) return;
    if (!this.running) return this.wake();
    for (const event of events) {
      this.direct.add(event.id);
      this.inFlight += 1;
      this.committed.push(event);
    }
    // Every commit of this turn of the event loop (a busy service finishes several writes in one)
    // is published together, in one socket write.
    this.committing ??= setImmediate(() => this.publishNow());
  }

  private publishNow(): void {
    this.committing = undefined;
    const events = this.committed;
    this.committed = [];
    for (const event of events) {
      outsideAnyTrace(() => this.publishTraced(event)).then(
        () => {
          this.inFlight -= 1;
          this.unmarked.push(event.id);
          this.scheduleMark();
        },
        (error: unknown) => {
          this.inFlight -= 1;
          this.direct.delete(event.id);
          this.reportFailure(error, { id: event.id, type: event.type });
          this.wake();
        },
      );
    }
  }

  /**
   * One pass; returns how many events were published. Rejects only if the database fails. Asked
   * for (`sweepAll`, the default), it takes every unpublished row no one else holds; a poll leaves
   * unclaimed rows younger than sweepAfterMs to the process publishing them.
   */
  relayOnce(sweepAll = true): Promise<number> {
    const pass = this.tail.then(() => this.pass(sweepAll));
    this.tail = pass.catch(() => undefined);
    return pass;
  }

  /** What is waiting in the outbox: how many events, and how old the oldest is. */
  stats(): Promise<{ pending: number; lagSeconds: number }> {
    return this.table.stats();
  }

  /** Stops polling, waits for the pass in flight and deletes the rows of what was published at once. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.tail;
    // Publishes still in flight end within their timeout; what they leave in the outbox is
    // published again by the next relay's pass (a duplicate JetStream drops).
    for (let waited = 0; this.inFlight > 0 && waited < 50; waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    if (this.markTimer) clearTimeout(this.markTimer);
    this.markTimer = undefined;
    await this.markNow().catch((error: unknown) =>
      this.options.logger.warn(
        { err: error, schema: this.options.schema },
        'outbox relay could not delete what it published at stop; the next pass publishes it again',
      ),
    );
  }

  private scheduleMark(): void {
    if (this.markTimer || this.marking) return;
    // The deletes are no part of the trace of the write whose publish scheduled them.
    this.markTimer = setTimeout(() => {
      this.markTimer = undefined;
      void outsideAnyTrace(() => this.markNow()).catch((error: unknown) => {
        // The database away fails every try (one per markEveryMs): warn once, the rest at debug.
        const fields = { err: error, fault: databaseFaultOf(error), schema: this.options.schema };
        if (this.markFailing)
          this.options.logger.debug(fields, 'outbox relay could not delete published events again');
        else this.options.logger.warn(fields, 'outbox relay could not delete published events; trying again');
        this.markFailing = true;
      });
    }, this.markEveryMs);
    this.markTimer.unref();
  }

  /** One DELETE for every id published since the last; one at a time. Failed ids are kept for the next. */
  private async markNow(): Promise<void> {
    if (this.marking) await this.marking;
    if (this.unmarked.length === 0) return;
    const ids = this.unmarked;
    this.unmarked = [];
    this.marking = this.table
      .delete(ids)
      .then(
        () => {
          this.markFailing = false;
          for (const id of ids) this.direct.delete(id);
          domainEventsPublished.inc({ service: this.options.schema }, ids.length);
          if (this.failing)
            this.options.logger.info({ schema: this.options.schema }, 'outbox relay publishing again');
          this.failing = false;
        },
        (error: unknown) => {
          this.unmarked.push(...ids);
          throw error;
        },
      )
      .finally(() => {
        this.marking = undefined;
        if (this.unmarked.length > 0 && this.running) this.scheduleMark();
      });
    await this.marking;
  }

  /** Within the trace of the write that made the event (its traceparent), while tracing. */
  private publishTraced(event: CloudEvent): Promise<void> {
    if (!isTracing()) return this.options.publisher.publish(event);
    return inSpan(
      `${event.type} publish`,
      {
        kind: SpanKind.PRODUCER,
        parent: contextOf(event),
        attributes: { 'messaging.system': 'nats', 'messaging.message.id': event.id },
      },
      () => this.options.publisher.publish(event),
    );
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    // Woken by a commit, a pass is still no part of that request's trace (each publish is a span
    // of its own event's trace instead).
    this.timer = setTimeout(() => void outsideAnyTrace(() => this.tick()), delayMs);
    // The relay is background work: it must not be what keeps a process alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.ticking = true;
    this.wakeRequested = false;
    let more = false;
    const sweepAll = this.sweepAll;
    this.sweepAll = false;
    try {
      // A full batch means more rows are probably waiting: go again at once.
      more = (await this.relayOnce(sweepAll)) === this.batchSize;
      // A full batch of a sweep: the next pass goes on sweeping.
      if (more) this.sweepAll ||= sweepAll;
    } catch (error) {
      // A sweep that failed is still owed.
      this.sweepAll ||= sweepAll;
      // The database away (a restart, a failover) is an outage the next passes outlast, not a bug.
      const fault = databaseFaultOf(error);
      if (fault)
        this.options.logger.warn(
          { err: error, fault, schema: this.options.schema },
          'outbox relay cannot reach the database; trying again',
        );
      else this.options.logger.error({ err: error, schema: this.options.schema }, 'outbox relay pass failed');
    } finally {
      this.ticking = false;
    }
    if (this.running) this.schedule(more || this.wakeRequested ? 0 : this.pollIntervalMs);
  }

  private async pass(sweepAll: boolean): Promise<number> {
    // What an earlier pass could not write back (the database went away after it published)
    // is settled before anything new is claimed: otherwise those rows would wait out the lease.
    if (this.owed) await this.settle(this.owed);
    const batch = await this.table.claim({
      batchSize: this.batchSize,
      leaseMs: this.leaseMs,
      inFlight: [...this.direct],
      olderThanMs: sweepAll ? undefined : this.sweepAfterMs,
    });
    const leaseUsableUntil = Date.now() + this.leaseMs * LEASE_USABLE_SHARE;
    // Every row of the batch is sent before the first acknowledgement is awaited (in seq order on
    // the one connection, so the stream keeps that order); the published ones are the acknowledged
    // prefix, and the rest is given back.
    const outcomes = await Promise.allSettled(batch.map((row) => this.publishTraced(row.payload)));
    let published = 0;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        this.reportFailure(outcome.reason, {
          id: batch[published]!.id,
          type: batch[published]!.payload.type,
        });
        break;
      }
      published += 1;
    }
    if (Date.now() > leaseUsableUntil)
      this.options.logger.warn(
        { schema: this.options.schema, events: batch.length },
        'outbox relay took most of its lease to publish a batch',
      );
    await this.settle({
      published: batch.slice(0, published).map((row) => row.id),
      left: batch.slice(published),
    });
    await this.pruneWhenDue();
    return published;
  }

  /**
   * Writes a batch's outcome back: its published rows deleted, the rest given back. Until that
   * has succeeded the batch stays owed, and the next pass settles it first.
   */
  private async settle(batch: Settlement): Promise<void> {
    this.owed = batch;
    if (batch.published.length > 0) {
      await this.table.delete(batch.published);
      domainEventsPublished.inc({ service: this.options.schema }, batch.published.length);
      if (this.failing)
        this.options.logger.info({ schema: this.options.schema }, 'outbox relay publishing again');
      this.failing = false;
      this.owed = { published: [], left: batch.left };
    }
    if (batch.left.length > 0) await this.table.release(batch.left);
    this.owed = undefined;
  }

  /** Once a minute: rows a process of the release before marked published (OutboxTable.prune). */
  private async pruneWhenDue(): Promise<void> {
    if (Date.now() - this.lastPrunedAt < PRUNE_EVERY_MS) return;
    this.lastPrunedAt = Date.now();
    await this.table.prune();
  }

  // NATS being down fails every pass: warn once, then keep the rest at debug until it recovers.
  private reportFailure(error: unknown, event: { id: string; type: string }): void {
    const fields = { err: error, schema: this.options.schema, eventId: event.id, type: event.type };
    if (this.failing) {
      this.options.logger.debug(fields, 'outbox relay publish failed again; retrying');
    } else {
      this.options.logger.warn(
        fields,
        'outbox relay publish failed; the event stays in the outbox and is retried',
      );
    }
    this.failing = true;
  }
}

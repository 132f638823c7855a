import type { CloudEvent } from '@townhall/contracts';
import type { DataSource } from 'typeorm';
import { connectionHolder } from '../database.js';
import { quoteSchema } from './outbox.js';

/** A row a relay's pass claimed, in seq order. */
export interface ClaimedRow {
  id: string;
  seq: string;
  payload: CloudEvent;
  /** The claim's own lease end, as Postgres wrote it, so that releasing touches only this claim. */
  claimed_until: string;
}

const PRUNE_CHUNK = 1_000;
const PRUNE_MAX_CHUNKS = 10;

/**
 * The statements OutboxRelay sends to a schema's outbox, each one autocommit statement: no
 * transaction outlives it, none is held while publishing. Claims name their holder (`claimed_by`:
 * this process's application_name, connectionHolder), so that a claim whose holder has no
 * connection left is taken over at once rather than after its lease.
 */
export class OutboxTable {
  private readonly table: string;
  /** This process's name in pg_stat_activity; claims without one only expire. */
  private readonly holder: string | null;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.table = `${quoteSchema(schema)}.outbox`;
    this.holder = connectionHolder(dataSource) ?? null;
  }

  /**
   * Claims up to `batchSize` rows for `leaseMs` (the lease is the claim; replicas share the work
   * through SKIP LOCKED), in seq order. Rows `inFlight` in this process are left alone, and so are
   * unclaimed rows younger than `olderThanMs` when given (a poll: another process is most likely
   * publishing those). A row with `published_at` set was published by a process of the release
   * before this one, which marked rows instead of deleting them (while a rollout runs both): it is
   * never claimed, only pruned.
   */
  claim(options: {
    batchSize: number;
    leaseMs: number;
    inFlight: string[];
    olderThanMs: number | undefined;
  }): Promise<ClaimedRow[]> {
    // The CTE returns rows in seq order (UPDATE ... RETURNING alone has no order) and makes the
    // driver hand back plain rows. pg_stat_activity is read only for a row still under someone's
    // lease (OR evaluates in order), that is, almost never.
    return this.dataSource.query(
      `WITH claimed AS (
         UPDATE ${this.table}
            SET claimed_until = now() + $2::double precision * interval '1 millisecond',
                claimed_by = $3
          WHERE id IN (
            SELECT id FROM ${this.table}
             WHERE published_at IS NULL
               AND id <> ALL($4::uuid[])
               AND ((claimed_until IS NULL
                     AND created_at < now() - $5::double precision * interval '1 millisecond')
                    OR claimed_until < now()
                    OR claimed_by NOT IN (SELECT application_name FROM pg_stat_activity
                                           WHERE application_name IS NOT NULL))
             ORDER BY seq
             LIMIT $1
             FOR UPDATE SKIP LOCKED)
         RETURNING id, seq, payload, claimed_until::text AS claimed_until)
       SELECT id, seq, payload, claimed_until FROM claimed ORDER BY seq`,
      [options.batchSize, options.leaseMs, this.holder, options.inFlight, options.olderThanMs ?? -60_000],
    );
  }

  /** Deletes the rows of acknowledged events: from the PubAck on, the stream is the record. */
  async delete(ids: string[]): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE id = ANY($1::uuid[])`, [ids]);
  }

  // Gives unpublished rows back at once rather than at the end of the lease, so the next pass
  // retries them first and the relay keeps seq order. Rows whose lease already passed to another
  // relay keep that relay's claim.
  async release(rows: ClaimedRow[]): Promise<void> {
    const claimedUntil = rows[0]?.claimed_until;
    await this.dataSource.query(
      `UPDATE ${this.table} SET claimed_until = NULL, claimed_by = NULL
        WHERE id = ANY($1::uuid[]) AND claimed_until = $2::timestamptz`,
      [rows.map((row) => row.id), claimedUntil],
    );
  }

  /**
   * Deletes the rows that a process of the release before this one marked published instead of
   * deleting (during a rollout both run on one outbox), in small chunks so that a large number
   * never holds many row locks at once. A no-op once no such process is left.
   */
  async prune(): Promise<void> {
    for (let chunk = 0; chunk < PRUNE_MAX_CHUNKS; chunk += 1) {
      const [, deleted] = (await this.dataSource.query(
        `DELETE FROM ${this.table} WHERE id IN (
           SELECT id FROM ${this.table} WHERE published_at IS NOT NULL LIMIT $1)`,
        [PRUNE_CHUNK],
      )) as [unknown[], number];
      if (deleted < PRUNE_CHUNK) return;
    }
  }

  /** What is waiting: how many events, and how old the oldest is. */
  async stats(): Promise<{ pending: number; lagSeconds: number }> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS pending,
              COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS lag
         FROM ${this.table} WHERE published_at IS NULL`,
    )) as Array<{ pending: number; lag: number }>;
    return { pending: row?.pending ?? 0, lagSeconds: row?.lag ?? 0 };
  }
}

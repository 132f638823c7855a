import { outboxTablesV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seats, tickets, payments and money in one schema, so that a purchase is one local
 * transaction. The invariants live here as constraints: no tier or event sells past its
 * capacity, one live ticket per agent per event, one use per (payer, nonce), and ledger
 * entries that can never be changed.
 */
export class CreateTicketing1763900000000 implements MigrationInterface {
  name = 'CreateTicketing1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What ticketing knows of each event (a projection of townhall.event.*), with the total seat count.
    await queryRunner.query(`
      CREATE TABLE ticketing.events (
        event_id   uuid PRIMARY KEY,
        host_id    text NOT NULL,
        moderators text[] NOT NULL DEFAULT '{}',
        status     text NOT NULL,
        series_id  uuid,
        starts_at  timestamptz NOT NULL,
        ticketing  jsonb NOT NULL,
        capacity   integer NOT NULL,
        sold       integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL,
        CONSTRAINT events_total_capacity CHECK (sold >= 0 AND sold <= capacity)
      )`);
    await queryRunner.query(`CREATE INDEX events_by_series ON ticketing.events (series_id, starts_at)`);
    await queryRunner.query(`
      CREATE TABLE ticketing.inventory (
        event_id uuid NOT NULL REFERENCES ticketing.events (event_id),
        tier_id  text NOT NULL,
        price    numeric(40, 0) NOT NULL CHECK (price >= 0),
        capacity integer NOT NULL,
        sold     integer NOT NULL DEFAULT 0,
        PRIMARY KEY (event_id, tier_id),
        CONSTRAINT inventory_tier_capacity CHECK (sold >= 0 AND sold <= capacity)
      )`);
    await queryRunner.query(`
      CREATE TABLE ticketing.tickets (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event_id     uuid NOT NULL REFERENCES ticketing.events (event_id),
        tier_id      text NOT NULL,
        holder_id    text NOT NULL,
        status       text NOT NULL DEFAULT 'active' CHECK (status IN ('pending', 'active', 'cancelled')),
        price        numeric(40, 0) NOT NULL DEFAULT 0,
        asset        text,
        created_at   timestamptz NOT NULL DEFAULT now(),
        cancelled_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX tickets_one_live_per_agent ON ticketing.tickets (event_id, holder_id) WHERE status <> 'cancelled'`,
    );
    await queryRunner.query(
      `CREATE INDEX tickets_by_holder ON ticketing.tickets (holder_id, created_at, id)`,
    );
    await queryRunner.query(`CREATE INDEX tickets_by_event ON ticketing.tickets (event_id, created_at, id)`);
    await queryRunner.query(`
      CREATE TABLE ticketing.payments (
        payer       text NOT NULL,
        nonce       text NOT NULL,
        fingerprint text NOT NULL,
        event_id    uuid NOT NULL,
        tier_id     text NOT NULL,
        ticket_id   uuid REFERENCES ticketing.tickets (id),
        amount      numeric(40, 0) NOT NULL,
        asset       text NOT NULL,
        network     text NOT NULL,
        transaction text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (payer, nonce)
      )`);
    await queryRunner.query(`
      CREATE TABLE ticketing.balances (
        agent_id text NOT NULL,
        asset    text NOT NULL,
        amount   numeric(40, 0) NOT NULL DEFAULT 0,
        PRIMARY KEY (agent_id, asset)
      )`);
    await queryRunner.query(`
      CREATE TABLE ticketing.ledger_entries (
        seq             bigserial UNIQUE,
        id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type            text NOT NULL CHECK (type IN ('EVENT_TICKET', 'EVENT_TICKET_REFUND', 'FAUCET')),
        agent_id        text NOT NULL,
        amount          numeric(40, 0) NOT NULL CHECK (amount <> 0),
        asset           text NOT NULL,
        event_id        uuid,
        ticket_id       uuid,
        counterparty_id text,
        created_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ledger_by_agent ON ticketing.ledger_entries (agent_id, seq)`);
    // A ledger entry, once written, is history.
    await queryRunner.query(`
      CREATE FUNCTION ticketing.ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger entries are immutable';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ticketing.ledger_entries
      FOR EACH ROW EXECUTE FUNCTION ticketing.ledger_entries_immutable()`);
    await queryRunner.query(`
      CREATE TABLE ticketing.follows (
        series_id uuid NOT NULL,
        agent_id  text NOT NULL,
        PRIMARY KEY (series_id, agent_id)
      )`);
    // The outbox tables as this migration created them: version 1, frozen (a change to the outbox
    // is a new migration, never an edit of what this one ran).
    for (const statement of outboxTablesV1('"ticketing"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP SCHEMA ticketing CASCADE`);
  }
}

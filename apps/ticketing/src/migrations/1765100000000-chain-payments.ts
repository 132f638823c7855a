import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments on a chain (issue [14], docs/protocol/payments.md "Solana exact"):
 * - a ticket paid on chain, and the two ledger entries that record its purchase (and its refund),
 *   carry the chain network and transaction. Those entries move no ledger balance: the money
 *   moved on chain, between the agents' own token accounts.
 * - a settlement keeps its payment's identity (`payment_key`: the transaction message hash, or the
 *   canonical fingerprint for other schemes), so one payment can hold at most one live seat, and
 *   the transaction a facilitator named before it concluded (`pending_transaction`, from
 *   `settlement_pending`), which the chain is asked about.
 * - refunds owed for on-chain tickets of a cancelled event: the service holds no keys, so the
 *   host pays each one with its own key through the service, exactly once.
 */
export class ChainPayments1765100000000 implements MigrationInterface {
  name = 'ChainPayments1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ticketing.tickets ADD COLUMN network text, ADD COLUMN transaction text`,
    );
    await queryRunner.query(
      `ALTER TABLE ticketing.ledger_entries ADD COLUMN network text, ADD COLUMN transaction text`,
    );
    await queryRunner.query(
      `ALTER TABLE ticketing.settlements ADD COLUMN payment_key text, ADD COLUMN pending_transaction text`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX settlements_one_live_per_payment ON ticketing.settlements (payment_key)
       WHERE status <> 'voided'`,
    );
    await queryRunner.query(`
      CREATE TABLE ticketing.refunds (
        id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq             bigserial NOT NULL UNIQUE,
        ticket_id       uuid NOT NULL UNIQUE REFERENCES ticketing.tickets (id),
        event_id        uuid NOT NULL REFERENCES ticketing.events (event_id),
        host_id         text NOT NULL,
        holder_id       text NOT NULL,
        amount          numeric(40, 0) NOT NULL CHECK (amount > 0),
        asset           text NOT NULL,
        network         text NOT NULL,
        status          text NOT NULL DEFAULT 'owed' CHECK (status IN ('owed', 'paying', 'paid')),
        payment         jsonb,
        payment_key     text UNIQUE,
        transaction     text,
        pending_transaction text,
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_error      text,
        created_at      timestamptz NOT NULL,
        paid_at         timestamptz,
        CONSTRAINT refunds_paid CHECK ((status = 'paid') = (transaction IS NOT NULL AND paid_at IS NOT NULL)),
        CONSTRAINT refunds_paying CHECK (status = 'owed' OR (payment IS NOT NULL AND payment_key IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX refunds_by_event ON ticketing.refunds (event_id, seq)`);
    await queryRunner.query(`CREATE INDEX refunds_by_holder ON ticketing.refunds (holder_id, seq)`);
    await queryRunner.query(
      `CREATE INDEX refunds_due ON ticketing.refunds (next_attempt_at) WHERE status = 'paying'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ticketing.refunds`);
    await queryRunner.query(`DROP INDEX ticketing.settlements_one_live_per_payment`);
    await queryRunner.query(
      `ALTER TABLE ticketing.settlements DROP COLUMN payment_key, DROP COLUMN pending_transaction`,
    );
    await queryRunner.query(
      `ALTER TABLE ticketing.ledger_entries DROP COLUMN network, DROP COLUMN transaction`,
    );
    await queryRunner.query(`ALTER TABLE ticketing.tickets DROP COLUMN network, DROP COLUMN transaction`);
  }
}

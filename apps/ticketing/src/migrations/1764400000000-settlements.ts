import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments through an http facilitator, from the moment /settle is asked until a final outcome
 * (docs/protocol/payments.md "Settlement states"): `settling` holds the seat with a pending
 * ticket and keeps the payment to ask again; `settled` issued the ticket; `voided` released the
 * seat on the facilitator's definite refusal. A timeout is never an outcome.
 */
export class Settlements1764400000000 implements MigrationInterface {
  name = 'Settlements1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticketing.settlements (
        ticket_id       uuid PRIMARY KEY REFERENCES ticketing.tickets (id),
        event_id        uuid NOT NULL,
        tier_id         text NOT NULL,
        payer           text NOT NULL,
        payment         jsonb NOT NULL,
        requirements    jsonb NOT NULL,
        status          text NOT NULL DEFAULT 'settling' CHECK (status IN ('settling', 'settled', 'voided')),
        attempts        integer NOT NULL DEFAULT 1 CHECK (attempts >= 1),
        next_attempt_at timestamptz NOT NULL,
        last_error      text,
        transaction     text,
        network         text,
        created_at      timestamptz NOT NULL DEFAULT now(),
        concluded_at    timestamptz,
        CONSTRAINT settlements_concluded CHECK ((status = 'settling') = (concluded_at IS NULL)),
        CONSTRAINT settlements_transaction CHECK ((status = 'settled') = (transaction IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX settlements_due ON ticketing.settlements (next_attempt_at) WHERE status = 'settling'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ticketing.settlements`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the chain search for a payment a facilitator left open needs (docs/protocol/payments.md
 * "Settlement states"):
 * - a refund's `claimed_at`, when its payment was claimed (`owed` -> `paying`): the host's
 *   transfer cannot land before it, so the search of the host's token account goes back to it
 *   and no further. A refund being paid when this runs gets the time it became owed, which is
 *   before any claim: a search from there misses nothing, it only reads a little more.
 * - `chain_search` on settlements and refunds: where the last look's search stopped when it hit
 *   its bound before it was complete, so the next look goes on from there instead of starting
 *   again from the newest entry (a busy or flooded account is searched to its end in the end).
 */
export class PaymentSearch1767100000000 implements MigrationInterface {
  name = 'PaymentSearch1767100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ticketing.refunds ADD COLUMN claimed_at timestamptz, ADD COLUMN chain_search jsonb`,
    );
    await queryRunner.query(`UPDATE ticketing.refunds SET claimed_at = created_at WHERE status = 'paying'`);
    await queryRunner.query(
      `ALTER TABLE ticketing.refunds
         ADD CONSTRAINT refunds_claimed CHECK (status <> 'paying' OR claimed_at IS NOT NULL)`,
    );
    await queryRunner.query(`ALTER TABLE ticketing.settlements ADD COLUMN chain_search jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.settlements DROP COLUMN chain_search`);
    await queryRunner.query(
      `ALTER TABLE ticketing.refunds DROP CONSTRAINT refunds_claimed, DROP COLUMN claimed_at, DROP COLUMN chain_search`,
    );
  }
}

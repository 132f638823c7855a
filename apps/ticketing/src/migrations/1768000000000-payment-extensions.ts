import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * x402's official extensions on paid RSVPs (docs/protocol/payments.md "Extensions"):
 * - ticketing.payment_ids: the `payment-identifier` ids payments carried, per payer. Its primary
 *   key is the race guard: of two payments with one id, one claims it (in the transaction that
 *   takes its seat) and the other finds it taken: the same payment answers with that ticket, any
 *   other payment is 409 `payment.id_reused`. `fingerprint` is the payment's
 *   (paymentFingerprint: its scheme, network and payload), `ticket_id` what it bought.
 * - ticketing.tickets.receipt: the `offer-receipt` receipt signed when a paid ticket was issued,
 *   answered with the ticket ever after (the same payment again, GET /events/{id}/rsvp).
 */
export class PaymentExtensions1768000000000 implements MigrationInterface {
  name = 'PaymentExtensions1768000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticketing.payment_ids (
        payer       text NOT NULL,
        payment_id  text COLLATE "C" NOT NULL CHECK (payment_id ~ '^[A-Za-z0-9_-]{16,128}$'),
        fingerprint text NOT NULL,
        ticket_id   uuid NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (payer, payment_id)
      )`);
    await queryRunner.query(`ALTER TABLE ticketing.tickets ADD COLUMN receipt jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.tickets DROP COLUMN receipt`);
    await queryRunner.query(`DROP TABLE ticketing.payment_ids`);
  }
}

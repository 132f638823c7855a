import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How long a waitlist offer of a paid seat holds it (docs/product.md "Waitlist"); ticketing
 * holds the seats and reads the value from the event's domain events. Existing events get 15.
 */
export class OfferMinutes1764610000000 implements MigrationInterface {
  name = 'OfferMinutes1764610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE events.events ADD COLUMN offer_minutes integer NOT NULL DEFAULT 15
        CONSTRAINT events_offer_minutes CHECK (offer_minutes BETWEEN 1 AND 1440)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN offer_minutes`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may take a ticket (docs/product.md "Who may come"): `open` or `invite`; ticketing holds the
 * invites and reads the value from the event's domain events. Existing events stay `open`.
 */
export class EventAccess1767600000000 implements MigrationInterface {
  name = 'EventAccess1767600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE events.events ADD COLUMN access text NOT NULL DEFAULT 'open'
        CONSTRAINT events_access CHECK (access IN ('open', 'invite'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN access`);
  }
}

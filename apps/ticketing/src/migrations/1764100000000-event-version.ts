import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event version (events.events.version) each projected event is at. Capacity changes are
 * decided here against the seats sold and stamped with the version the events service will
 * record; a domain event or a decision with an older version never overwrites a newer one.
 */
export class EventVersion1764100000000 implements MigrationInterface {
  name = 'EventVersion1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.events ADD COLUMN version integer NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.events DROP COLUMN version`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an event's reminder (`townhall.event.starting_soon`) was announced for its current start
 * time: null until then, and again after a PATCH moves `startsAt`. The partial index holds only the
 * scheduled events not yet reminded, so the reminder job's look at the next minutes is a short
 * range scan however many events there are.
 */
export class EventReminders1766100000000 implements MigrationInterface {
  name = 'EventReminders1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events ADD COLUMN reminded_at timestamptz NULL`);
    await queryRunner.query(
      `CREATE INDEX events_to_remind ON events.events (starts_at) WHERE status = 'scheduled' AND reminded_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events.events_to_remind`);
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN reminded_at`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event knows when its recording was published (engagement's `townhall.recording.published`,
 * kept by PublishedRecordings), so that lists of past events can link recordings without asking
 * engagement about each one.
 */
export class RecordingPublished1766000000000 implements MigrationInterface {
  name = 'RecordingPublished1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events ADD COLUMN recording_published_at timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN recording_published_at`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An event's moderation settings (docs/product.md "Moderation"); existing events keep the defaults. */
export class Moderation1764500000000 implements MigrationInterface {
  name = 'Moderation1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE events.events ADD COLUMN moderation jsonb NOT NULL
        DEFAULT '{"questions": "post", "reportThreshold": 3}'
        CONSTRAINT events_moderation CHECK (
          moderation->>'questions' IN ('post', 'pre')
          AND jsonb_typeof(moderation->'reportThreshold') = 'number'
          AND (moderation->>'reportThreshold')::numeric BETWEEN 1 AND 100)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN moderation`);
  }
}

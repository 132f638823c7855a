import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Series that end, and an extension that looks only at series that need it (docs/product.md
 * "Series"). `ended_at`: when the host ended the series; nothing is scheduled for it after that.
 * `extend_due_at`: when the periodic extension must next look at the series (extensionDue in
 * series/recurrence.ts), null once the rule has nothing more to plan. The partial index holds
 * only the live series that will need extending, so a pass reads the due ones and no others
 * however many series were ever made. Existing series are due at once and get their time then.
 */
export class SeriesEnd1767230000000 implements MigrationInterface {
  name = 'SeriesEnd1767230000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.series ADD COLUMN ended_at timestamptz NULL`);
    await queryRunner.query(
      `ALTER TABLE events.series ADD COLUMN extend_due_at timestamptz NULL DEFAULT now()`,
    );
    await queryRunner.query(
      `CREATE INDEX series_extend_due ON events.series (extend_due_at) WHERE ended_at IS NULL AND extend_due_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events.series_extend_due`);
    await queryRunner.query(`ALTER TABLE events.series DROP COLUMN extend_due_at, DROP COLUMN ended_at`);
  }
}

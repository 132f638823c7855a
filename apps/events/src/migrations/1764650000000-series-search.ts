import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /events/series (docs/product.md "Series"): words in the title or description, as the
 * event list finds them, and keyset paging newest first, overall and per host.
 */
export class SeriesSearch1764650000000 implements MigrationInterface {
  name = 'SeriesSearch1764650000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE events.series ADD COLUMN search tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || description)) STORED`);
    await queryRunner.query(`CREATE INDEX series_search ON events.series USING gin (search)`);
    await queryRunner.query(`CREATE INDEX series_by_creation ON events.series (created_at, id)`);
    await queryRunner.query(`CREATE INDEX series_by_host ON events.series (host_id, created_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP INDEX events.series_by_host, events.series_by_creation, events.series_search`,
    );
    await queryRunner.query(`ALTER TABLE events.series DROP COLUMN search`);
  }
}

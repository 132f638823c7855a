import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Followers are seated in one occurrence at a time (docs/product.md "Series", SeriesFollowers):
 * `followers_seated_at` is when an occurrence's followers were given their seats, as it became its
 * series' next one (null until then), so that it happens once; `followed_at` orders followers
 * when seats run short (those who followed before this are ordered as they were: by agent).
 */
export class FollowerSeating1767230000000 implements MigrationInterface {
  name = 'FollowerSeating1767230000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.events ADD COLUMN followers_seated_at timestamptz NULL`);
    await queryRunner.query(
      `ALTER TABLE ticketing.follows ADD COLUMN followed_at timestamptz NOT NULL DEFAULT now()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.follows DROP COLUMN followed_at`);
    await queryRunner.query(`ALTER TABLE ticketing.events DROP COLUMN followers_seated_at`);
  }
}

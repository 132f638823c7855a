import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCards1763700000000 implements MigrationInterface {
  name = 'CreateCards1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE directory.cards (
        agent_id     text PRIMARY KEY,
        handle       text NOT NULL CONSTRAINT cards_handle_format CHECK (handle ~ '^[a-z0-9_]{3,30}$'),
        display_name text,
        bio          text,
        avatar_url   text,
        links        jsonb NOT NULL DEFAULT '[]',
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now()
      )`);
    // Case-insensitive uniqueness lives in the database, so no race can hand one handle to two keys.
    await queryRunner.query(`CREATE UNIQUE INDEX cards_handle_key ON directory.cards (lower(handle))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE directory.cards`);
  }
}

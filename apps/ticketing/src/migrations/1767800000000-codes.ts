import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Codes (docs/product.md "Codes"), next to the prices they change.
 * - ticketing.codes: one row per code of an event, keyed by its lower case (`code_key`: codes are
 *   case-insensitive) and keeping the host's spelling; `uses` counts the tickets that carry it,
 *   and its check constraint keeps it within `max_uses` whatever the race (ticketing.use_code
 *   adds a use in the transaction that issues the ticket).
 * - ticketing.tickets.code and ticketing.ledger_entries.code: the code a ticket was bought with
 *   (its `price` and the entries' amounts are what was paid).
 */
export class Codes1767800000000 implements MigrationInterface {
  name = 'Codes1767800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ticketing.codes (
        event_id         uuid NOT NULL REFERENCES ticketing.events (event_id),
        code_key         text COLLATE "C" NOT NULL,
        code             text NOT NULL,
        percent_off      integer CHECK (percent_off BETWEEN 1 AND 100),
        amount_off       numeric(78, 0) CHECK (amount_off > 0),
        free             boolean NOT NULL DEFAULT false,
        max_uses         integer CHECK (max_uses > 0),
        uses             integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
        tier_ids         text[],
        unlocks_tier_ids text[] NOT NULL DEFAULT '{}',
        expires_at       timestamptz,
        created_at       timestamptz NOT NULL,
        PRIMARY KEY (event_id, code_key),
        CONSTRAINT codes_key CHECK (code_key = lower(code)),
        CONSTRAINT codes_within_max_uses CHECK (max_uses IS NULL OR uses <= max_uses),
        CONSTRAINT codes_one_discount CHECK (
          (percent_off IS NOT NULL)::int + (amount_off IS NOT NULL)::int + free::int <= 1)
      )`);
    await queryRunner.query(
      `CREATE INDEX codes_in_order ON ticketing.codes (event_id, created_at, code_key)`,
    );
    await queryRunner.query(`ALTER TABLE ticketing.tickets ADD COLUMN code text`);
    await queryRunner.query(`ALTER TABLE ticketing.ledger_entries ADD COLUMN code text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.ledger_entries DROP COLUMN code`);
    await queryRunner.query(`ALTER TABLE ticketing.tickets DROP COLUMN code`);
    await queryRunner.query(`DROP TABLE ticketing.codes`);
  }
}

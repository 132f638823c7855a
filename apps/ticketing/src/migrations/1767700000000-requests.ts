import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Requests to come (docs/product.md "Who may come"), next to the seats they hold.
 * - ticketing.events.access also takes `approval`.
 * - ticketing.requests: one row per agent that asked to come to an event (its RSVP while the
 *   event's access is `approval`), `requested`, then `approved` or `declined`; `requested_at`
 *   orders the host's list, then the agent id in byte order (`C`), as its cursor compares it. The
 *   seat an approval holds on a paid event is a waitlist offer (ticketing.waitlist, `offered`):
 *   purchase and expiry take it as they take any offer; `hold_expires_at` is that offer's end.
 */
export class Requests1767700000000 implements MigrationInterface {
  name = 'Requests1767700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ticketing.events DROP CONSTRAINT events_access`);
    await queryRunner.query(`
      ALTER TABLE ticketing.events ADD CONSTRAINT events_access
        CHECK (access IN ('open', 'approval', 'invite'))`);
    await queryRunner.query(`
      CREATE TABLE ticketing.requests (
        event_id        uuid NOT NULL REFERENCES ticketing.events (event_id),
        agent_id        text COLLATE "C" NOT NULL,
        tier_id         text,
        status          text NOT NULL DEFAULT 'requested'
                        CHECK (status IN ('requested', 'approved', 'declined')),
        hold_expires_at timestamptz,
        requested_at    timestamptz NOT NULL,
        decided_at      timestamptz,
        decided_by      text,
        PRIMARY KEY (event_id, agent_id),
        CONSTRAINT requests_decided CHECK ((status = 'requested') = (decided_at IS NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX requests_in_order ON ticketing.requests (event_id, requested_at, agent_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ticketing.requests`);
    await queryRunner.query(`UPDATE ticketing.events SET access = 'open' WHERE access = 'approval'`);
    await queryRunner.query(`ALTER TABLE ticketing.events DROP CONSTRAINT events_access`);
    await queryRunner.query(
      `ALTER TABLE ticketing.events ADD CONSTRAINT events_access CHECK (access IN ('open', 'invite'))`,
    );
  }
}

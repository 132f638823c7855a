import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may come (docs/product.md "Who may come"), next to the seats it hands out.
 * - ticketing.events.access: the event field (`open` or `invite`), from townhall.event.*.
 * - ticketing.invites: one row per agent the host invited to an event; `invited_at` orders the
 *   host's list, then the agent id in byte order (`C`), as its cursor compares it. An invite
 *   removed is deleted: a ticket it let the agent take is kept.
 */
export class Invites1767600000000 implements MigrationInterface {
  name = 'Invites1767600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ticketing.events ADD COLUMN access text NOT NULL DEFAULT 'open'
        CONSTRAINT events_access CHECK (access IN ('open', 'invite'))`);
    await queryRunner.query(`
      CREATE TABLE ticketing.invites (
        event_id   uuid NOT NULL REFERENCES ticketing.events (event_id),
        agent_id   text COLLATE "C" NOT NULL,
        invited_by text NOT NULL,
        invited_at timestamptz NOT NULL,
        PRIMARY KEY (event_id, agent_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX invites_in_order ON ticketing.invites (event_id, invited_at, agent_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ticketing.invites`);
    await queryRunner.query(`ALTER TABLE ticketing.events DROP COLUMN access`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hot paths of engagement without a message to another service and in few round trips
 * (issue [10]):
 * - engagement.events: each event's host, moderators, speakers and status as the events
 *   service announced them (townhall.event.*), a newer version never overwritten by an older
 *   one. With engagement.attendance it answers "who may do what" (access/participants.ts).
 * - The stage lock becomes an advisory lock: every write holds it shared, the end of the event
 *   exclusively. Same guarantee as the row lock it replaces (the end waits for the writes in
 *   flight; every write after it sees `ended_at`), without a MultiXact per concurrent writer.
 * - engagement.submit_question: a question in one call (the stage lock, the end, the
 *   per-agent rate, the row and its domain event).
 */
export class EventStanding1764200000000 implements MigrationInterface {
  name = 'EventStanding1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE engagement.events (
        event_id   uuid PRIMARY KEY,
        host_id    text NOT NULL,
        moderators text[] NOT NULL,
        speakers   text[] NOT NULL,
        status     text NOT NULL,
        version    integer NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX attendance_live ON engagement.attendance (event_id, agent_id) WHERE cancelled_at IS NULL`,
    );
    // engagement.announce, as @townhall/platform's outboxAnnounceFunctionSql('engagement') wrote it then
    // (copied: this migration runs what it ran). Its current definition is applied after the
    // migrations (outboxAnnounceFunction).
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "engagement".announce(events jsonb) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "engagement".outbox (id, type, subject, payload)
    SELECT (e->>'id')::uuid, e->>'type', e->>'subject', e
    FROM jsonb_array_elements(events) WITH ORDINALITY AS t(e, n) ORDER BY n
  $$`);
    // The stage lock's key as it was then; its one definition now is db/functions/hold_open.sql.
    await queryRunner.query(`
      CREATE FUNCTION engagement.hold_open(p_event uuid) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(hashtext('engagement.stage'), hashtext(p_event::text));
        RETURN NOT EXISTS (
          SELECT 1 FROM engagement.stages WHERE event_id = p_event AND ended_at IS NOT NULL);
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION engagement.close_stage(p_event uuid, p_ended_at timestamptz) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('engagement.stage'), hashtext(p_event::text));
        INSERT INTO engagement.stages AS s (event_id, ended_at) VALUES (p_event, p_ended_at)
        ON CONFLICT (event_id) DO UPDATE SET ended_at = COALESCE(s.ended_at, EXCLUDED.ended_at);
      END $$`);
    // 'submitted', or why not: 'ended', 'rate_limited'. A refusal writes nothing.
    await queryRunner.query(`
      CREATE FUNCTION engagement.submit_question(
        p_id uuid, p_event uuid, p_author text, p_body text, p_at timestamptz,
        p_per_minute integer, p_events jsonb
      ) RETURNS text LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT engagement.hold_open(p_event) THEN
          RETURN 'ended';
        END IF;
        -- The count and the insert are one step per (event, agent): concurrent submissions
        -- cannot all slip under the limit.
        PERFORM pg_advisory_xact_lock(hashtext('engagement.questions:' || p_event || ':' || p_author));
        IF (SELECT count(*) FROM engagement.questions
            WHERE event_id = p_event AND author_id = p_author
              AND created_at > p_at - interval '1 minute') >= p_per_minute THEN
          RETURN 'rate_limited';
        END IF;
        INSERT INTO engagement.questions (id, event_id, author_id, body, created_at, updated_at)
        VALUES (p_id, p_event, p_author, p_body, p_at, p_at);
        PERFORM engagement.announce(p_events);
        RETURN 'submitted';
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION engagement.submit_question`);
    await queryRunner.query(`DROP FUNCTION engagement.close_stage`);
    await queryRunner.query(`DROP FUNCTION engagement.hold_open`);
    await queryRunner.query(`DROP FUNCTION engagement.announce`);
    await queryRunner.query(`DROP INDEX engagement.attendance_live`);
    await queryRunner.query(`DROP TABLE engagement.events`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Moderation (docs/product.md "Moderation"), with its rules as constraints:
 * - questions gain `pending` (held for review) and `withdrawn` (by the author), a count of
 *   reports that moves only with a row of engagement.question_reports (one per agent), `withheld`
 *   (dismissed while pending: never public) and `cleared_at` (approved after reports held it: they
 *   hold it no more);
 * - a stage message may be hidden (when and by whom, both or neither);
 * - engagement.blocks: one row per agent blocked in an event;
 * - engagement.events keeps each event's moderation settings with its roles;
 * - engagement.submit_question takes the new question's state and refuses a blocked author
 *   inside the same call, after the stage lock.
 */
export class Moderation1764500000000 implements MigrationInterface {
  name = 'Moderation1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE engagement.questions DROP CONSTRAINT questions_state_check`);
    await queryRunner.query(`
      ALTER TABLE engagement.questions
        ADD CONSTRAINT questions_state
          CHECK (state IN ('pending', 'open', 'promoted', 'answered', 'dismissed', 'withdrawn')),
        ADD COLUMN reports integer NOT NULL DEFAULT 0 CHECK (reports >= 0),
        -- dismissed while pending: the public never sees it, in any state
        ADD COLUMN withheld boolean NOT NULL DEFAULT false,
        -- approved by a moderator after reports held it: reports no longer hold it back
        ADD COLUMN cleared_at timestamptz`);
    await queryRunner.query(`
      CREATE TABLE engagement.question_reports (
        question_id uuid NOT NULL REFERENCES engagement.questions (id),
        agent_id    text NOT NULL,
        reason      text CHECK (char_length(reason) BETWEEN 1 AND 500),
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (question_id, agent_id)
      )`);
    await queryRunner.query(`
      ALTER TABLE engagement.stage_messages
        ADD COLUMN hidden_at timestamptz,
        ADD COLUMN hidden_by text,
        ADD CONSTRAINT stage_messages_hidden CHECK ((hidden_at IS NULL) = (hidden_by IS NULL))`);
    await queryRunner.query(`
      CREATE TABLE engagement.blocks (
        -- blocking order, for the list (most recent first) and its cursor
        seq        bigserial NOT NULL UNIQUE,
        event_id   uuid NOT NULL,
        agent_id   text NOT NULL,
        blocked_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, agent_id)
      )`);
    await queryRunner.query(`CREATE INDEX blocks_recent ON engagement.blocks (event_id, seq DESC)`);
    await queryRunner.query(`
      ALTER TABLE engagement.events
        ADD COLUMN question_moderation text NOT NULL DEFAULT 'post' CHECK (question_moderation IN ('post', 'pre')),
        ADD COLUMN report_threshold integer NOT NULL DEFAULT 3 CHECK (report_threshold BETWEEN 1 AND 100)`);
    await queryRunner.query(
      `DROP FUNCTION engagement.submit_question(uuid, uuid, text, text, timestamptz, integer, jsonb)`,
    );
    // 'submitted', or why not: 'ended', 'blocked', 'rate_limited'. A refusal writes nothing.
    await queryRunner.query(`
      CREATE FUNCTION engagement.submit_question(
        p_id uuid, p_event uuid, p_author text, p_body text, p_at timestamptz,
        p_per_minute integer, p_state text, p_events jsonb
      ) RETURNS text LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT engagement.hold_open(p_event) THEN
          RETURN 'ended';
        END IF;
        IF EXISTS (SELECT 1 FROM engagement.blocks WHERE event_id = p_event AND agent_id = p_author) THEN
          RETURN 'blocked';
        END IF;
        -- The count and the insert are one step per (event, agent): concurrent submissions
        -- cannot all slip under the limit.
        PERFORM pg_advisory_xact_lock(hashtext('engagement.questions:' || p_event || ':' || p_author));
        IF (SELECT count(*) FROM engagement.questions
            WHERE event_id = p_event AND author_id = p_author
              AND created_at > p_at - interval '1 minute') >= p_per_minute THEN
          RETURN 'rate_limited';
        END IF;
        INSERT INTO engagement.questions (id, event_id, author_id, body, state, created_at, updated_at)
        VALUES (p_id, p_event, p_author, p_body, p_state, p_at, p_at);
        PERFORM engagement.announce(p_events);
        RETURN 'submitted';
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION engagement.submit_question(uuid, uuid, text, text, timestamptz, integer, text, jsonb)`,
    );
    await queryRunner.query(`
      CREATE FUNCTION engagement.submit_question(
        p_id uuid, p_event uuid, p_author text, p_body text, p_at timestamptz,
        p_per_minute integer, p_events jsonb
      ) RETURNS text LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT engagement.hold_open(p_event) THEN
          RETURN 'ended';
        END IF;
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
    await queryRunner.query(
      `ALTER TABLE engagement.events DROP COLUMN question_moderation, DROP COLUMN report_threshold`,
    );
    await queryRunner.query(`DROP TABLE engagement.blocks`);
    await queryRunner.query(
      `ALTER TABLE engagement.stage_messages DROP CONSTRAINT stage_messages_hidden, DROP COLUMN hidden_at, DROP COLUMN hidden_by`,
    );
    await queryRunner.query(`DROP TABLE engagement.question_reports`);
    await queryRunner.query(`DELETE FROM engagement.questions WHERE state IN ('pending', 'withdrawn')`);
    await queryRunner.query(`
      ALTER TABLE engagement.questions DROP CONSTRAINT questions_state, DROP COLUMN reports,
        DROP COLUMN withheld, DROP COLUMN cleared_at,
        ADD CONSTRAINT questions_state_check CHECK (state IN ('open', 'promoted', 'answered', 'dismissed'))`);
  }
}

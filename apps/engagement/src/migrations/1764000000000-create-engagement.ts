import { outboxTablesV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The live side of an event: stage, Q&A, polls, the recording, and the attendance it reports.
 * The invariants live here as constraints: one sequence per stage message of an event, one
 * upvote per agent per question, one ballot per agent per poll, counters that never go negative.
 */
export class CreateEngagement1764000000000 implements MigrationInterface {
  name = 'CreateEngagement1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per event: the stage's sequence counter, and the end of the event as this service
    // saw it. Every write of an event locks it first (posts exclusively, the rest shared), so the
    // end, which updates it, waits for writes in flight and every write after it sees the end.
    await queryRunner.query(`
      CREATE TABLE engagement.stages (
        event_id      uuid PRIMARY KEY,
        last_sequence integer NOT NULL DEFAULT 0 CHECK (last_sequence >= 0),
        ended_at      timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE engagement.questions (
        id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        -- submission order, for sorting by age and for cursors
        seq        bigserial NOT NULL UNIQUE,
        event_id   uuid NOT NULL,
        author_id  text NOT NULL,
        body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 1000),
        upvotes    integer NOT NULL DEFAULT 0 CHECK (upvotes >= 0),
        state      text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'promoted', 'answered', 'dismissed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX questions_top ON engagement.questions (event_id, upvotes DESC, seq)`,
    );
    await queryRunner.query(`CREATE INDEX questions_new ON engagement.questions (event_id, seq)`);
    // The per-agent submission rate is counted on this index.
    await queryRunner.query(
      `CREATE INDEX questions_by_author ON engagement.questions (event_id, author_id, created_at)`,
    );
    await queryRunner.query(`
      CREATE TABLE engagement.question_upvotes (
        question_id uuid NOT NULL REFERENCES engagement.questions (id),
        agent_id    text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (question_id, agent_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE engagement.stage_messages (
        id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event_id    uuid NOT NULL,
        sequence    integer NOT NULL CHECK (sequence >= 1),
        author_id   text NOT NULL,
        body        text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 4000),
        kind        text NOT NULL CHECK (kind IN ('message', 'question')),
        question_id uuid REFERENCES engagement.questions (id),
        created_at  timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT stage_messages_sequence UNIQUE (event_id, sequence),
        CONSTRAINT stage_messages_question CHECK ((kind = 'question') = (question_id IS NOT NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE engagement.polls (
        id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq                bigserial NOT NULL UNIQUE,
        event_id           uuid NOT NULL,
        opener_id          text NOT NULL,
        question           text NOT NULL CHECK (char_length(question) BETWEEN 1 AND 500),
        multiple           boolean NOT NULL,
        results_visibility text NOT NULL CHECK (results_visibility IN ('live', 'after_close')),
        status             text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        closes_at          timestamptz,
        ballots            integer NOT NULL DEFAULT 0 CHECK (ballots >= 0),
        created_at         timestamptz NOT NULL DEFAULT now(),
        closed_at          timestamptz,
        CONSTRAINT polls_closed_at CHECK ((status = 'closed') = (closed_at IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX polls_by_event ON engagement.polls (event_id, seq)`);
    // The closing sweep looks only at open polls with a deadline.
    await queryRunner.query(
      `CREATE INDEX polls_due ON engagement.polls (closes_at) WHERE status = 'open' AND closes_at IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE engagement.poll_options (
        poll_id  uuid NOT NULL REFERENCES engagement.polls (id),
        id       text NOT NULL,
        position integer NOT NULL,
        label    text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 200),
        votes    integer NOT NULL DEFAULT 0 CHECK (votes >= 0),
        PRIMARY KEY (poll_id, id),
        CONSTRAINT poll_options_position UNIQUE (poll_id, position)
      )`);
    await queryRunner.query(`
      CREATE TABLE engagement.ballots (
        poll_id    uuid NOT NULL REFERENCES engagement.polls (id),
        agent_id   text NOT NULL,
        option_ids text[] NOT NULL CHECK (cardinality(option_ids) >= 1),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (poll_id, agent_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE engagement.recordings (
        event_id     uuid PRIMARY KEY,
        host_id      text NOT NULL,
        ended_at     timestamptz NOT NULL,
        transcript   jsonb NOT NULL,
        published    boolean NOT NULL DEFAULT false,
        published_at timestamptz,
        media_url    text,
        summary      text,
        created_at   timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT recordings_published_at CHECK (published = (published_at IS NOT NULL))
      )`);
    // Tickets as ticketing announced them (townhall.ticket.*): the recording's attendance.
    await queryRunner.query(`
      CREATE TABLE engagement.attendance (
        ticket_id    uuid PRIMARY KEY,
        event_id     uuid NOT NULL,
        agent_id     text NOT NULL,
        issued_at    timestamptz NOT NULL,
        cancelled_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX attendance_by_event ON engagement.attendance (event_id, agent_id)`);
    // The outbox tables as this migration created them: version 1, frozen (a change to the outbox
    // is a new migration, never an edit of what this one ran).
    for (const statement of outboxTablesV1('"engagement"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP TABLE engagement.attendance, engagement.recordings, engagement.ballots, engagement.poll_options,
         engagement.polls, engagement.stage_messages, engagement.question_upvotes, engagement.questions,
         engagement.stages, engagement.outbox, engagement.processed_events`,
    );
  }
}

import { outboxTablesV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEvents1763800000000 implements MigrationInterface {
  name = 'CreateEvents1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events.series (
        id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        title       text NOT NULL,
        description text NOT NULL DEFAULT '',
        host_id     text NOT NULL,
        recurrence  jsonb NOT NULL,
        template    jsonb NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE events.events (
        id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        title            text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        description      text NOT NULL DEFAULT '',
        agenda           jsonb NOT NULL DEFAULT '[]',
        starts_at        timestamptz NOT NULL,
        ends_at          timestamptz NOT NULL,
        timezone         text NOT NULL,
        host_id          text NOT NULL,
        moderators       text[] NOT NULL DEFAULT '{}',
        speakers         text[] NOT NULL DEFAULT '{}',
        capacity         integer NOT NULL CHECK (capacity BETWEEN 1 AND 1000000),
        ticketing        jsonb NOT NULL,
        status           text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'live', 'past', 'cancelled')),
        series_id        uuid REFERENCES events.series (id),
        occurrence_index integer,
        tickets_sold     jsonb NOT NULL DEFAULT '{}',
        question_count   integer NOT NULL DEFAULT 0,
        poll_count       integer NOT NULL DEFAULT 0,
        version          integer NOT NULL DEFAULT 1,
        search           tsvector GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || description)) STORED,
        created_at       timestamptz NOT NULL DEFAULT now(),
        updated_at       timestamptz NOT NULL DEFAULT now(),
        started_at       timestamptz,
        ended_at         timestamptz,
        cancelled_at     timestamptz,
        CONSTRAINT events_time_order CHECK (starts_at < ends_at),
        CONSTRAINT events_occurrence UNIQUE (series_id, occurrence_index),
        CONSTRAINT events_occurrence_pair CHECK ((series_id IS NULL) = (occurrence_index IS NULL))
      )`);
    // The list is always ordered by (starts_at, id): keyset paging walks these indexes.
    await queryRunner.query(`CREATE INDEX events_by_start ON events.events (starts_at, id)`);
    await queryRunner.query(`CREATE INDEX events_by_host ON events.events (host_id, starts_at, id)`);
    await queryRunner.query(`CREATE INDEX events_by_series ON events.events (series_id, starts_at, id)`);
    await queryRunner.query(`CREATE INDEX events_by_status ON events.events (status, starts_at, id)`);
    await queryRunner.query(`CREATE INDEX events_search ON events.events USING gin (search)`);
    await queryRunner.query(`
      CREATE TABLE events.series_followers (
        series_id  uuid NOT NULL REFERENCES events.series (id),
        agent_id   text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (series_id, agent_id)
      )`);
    // The outbox tables as this migration created them: version 1, frozen (a change to the outbox
    // is a new migration, never an edit of what this one ran).
    for (const statement of outboxTablesV1('"events"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP TABLE events.series_followers, events.events, events.series, events.outbox, events.processed_events`,
    );
  }
}

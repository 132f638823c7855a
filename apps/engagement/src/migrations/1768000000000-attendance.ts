import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Attendance (docs/product.md "The report"): who was present, for how long, and how many watched.
 * - engagement.stream_sessions: an agent's presence in an event as one gateway saw it, from the
 *   snapshots of open live streams each gateway sends (Reports.presence), or a zero-length one
 *   (`gateway_id` 'write') for a write (a stage post, a question, an upvote, a ballot). At most one
 *   open session per (gateway, event, agent); one whose `last_seen_at` is older than three of its
 *   gateway's `interval_ms` ended at `last_seen_at` (the gateway died).
 * - engagement.viewer_samples: the streams of an event open on one gateway, signed or not, per
 *   bucket of `interval_ms` (the most seen in the bucket).
 * - engagement.events keeps when the event went live and when it ended (townhall.event.*), the
 *   window the report intersects the sessions with.
 */
export class Attendance1768000000000 implements MigrationInterface {
  name = 'Attendance1768000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE engagement.stream_sessions (
        id           bigserial PRIMARY KEY,
        event_id     uuid NOT NULL,
        agent_id     text NOT NULL,
        gateway_id   text NOT NULL,
        -- how often its gateway reports (0 for a write): not reported for three, it ended
        interval_ms  integer NOT NULL CHECK (interval_ms >= 0),
        started_at   timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        ended_at     timestamptz,
        CONSTRAINT stream_sessions_seen CHECK (last_seen_at >= started_at),
        CONSTRAINT stream_sessions_ended CHECK (ended_at IS NULL OR ended_at >= started_at)
      )`);
    // One open session per (gateway, event, agent); also how a snapshot finds its gateway's.
    await queryRunner.query(
      `CREATE UNIQUE INDEX stream_sessions_open ON engagement.stream_sessions (gateway_id, event_id, agent_id)
         WHERE ended_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX stream_sessions_by_event ON engagement.stream_sessions (event_id, agent_id)`,
    );
    await queryRunner.query(`
      CREATE TABLE engagement.viewer_samples (
        event_id    uuid NOT NULL,
        -- the start of the bucket: a multiple of interval_ms since the epoch
        sampled_at  timestamptz NOT NULL,
        gateway_id  text NOT NULL,
        interval_ms integer NOT NULL CHECK (interval_ms > 0),
        viewers     integer NOT NULL CHECK (viewers >= 0),
        PRIMARY KEY (event_id, sampled_at, gateway_id)
      )`);
    await queryRunner.query(
      `ALTER TABLE engagement.events ADD COLUMN live_at timestamptz, ADD COLUMN ended_at timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE engagement.events DROP COLUMN live_at, DROP COLUMN ended_at`);
    await queryRunner.query(`DROP TABLE engagement.viewer_samples`);
    await queryRunner.query(`DROP TABLE engagement.stream_sessions`);
  }
}

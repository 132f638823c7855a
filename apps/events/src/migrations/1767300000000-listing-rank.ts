import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event list's first key (GET /events, the index page): 0 for an event with at least one
 * ticket held (tickets_sold, kept by EventCounts from ticketing's domain events), 1 otherwise.
 * Creating events costs a key nothing; a ticket holder is the one thing about an event that its
 * host alone cannot make, so events someone holds a seat in are listed before those nobody does.
 * A stored generated column, so the list is one range scan of its index in that order.
 */
export class ListingRank1767300000000 implements MigrationInterface {
  name = 'ListingRank1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE events.events ADD COLUMN listing_rank smallint NOT NULL
         GENERATED ALWAYS AS (CASE WHEN jsonb_path_exists(tickets_sold, '$.* ? (@ > 0)') THEN 0 ELSE 1 END) STORED`,
    );
    await queryRunner.query(`CREATE INDEX events_by_rank ON events.events (listing_rank, starts_at, id)`);
    await queryRunner.query(
      `CREATE INDEX events_by_status_rank ON events.events (status, listing_rank, starts_at, id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events.events_by_status_rank`);
    await queryRunner.query(`DROP INDEX events.events_by_rank`);
    await queryRunner.query(`ALTER TABLE events.events DROP COLUMN listing_rank`);
  }
}

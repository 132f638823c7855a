import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  LOGGER,
  type Logger,
  OutboxWriter,
  Periodic,
  queryRows,
} from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import type { TicketingConfig } from '../config.js';
import { EVENT_COLUMNS, type EventRow } from '../projection/event-row.js';
import { TakeSeat } from '../tickets/take-seat.js';

/**
 * The series' next free occurrence: the first scheduled one that has not started, free and open
 * (an invite-only occurrence seats whom the host invites, not its followers).
 */
const NEXT_OCCURRENCE = `SELECT ${EVENT_COLUMNS}, followers_seated_at FROM ticketing.events
  WHERE series_id = $1 AND status = 'scheduled' AND starts_at > $2 AND ticketing->>'mode' = 'free' AND access = 'open'
  ORDER BY starts_at, event_id LIMIT 1`;

/**
 * Series followers' seats (docs/product.md "Series"): a follower is given a seat in the series'
 * next free occurrence only, never in the ones after it. Each later occurrence is open to everyone
 * from the moment it is scheduled, and its followers are seated only when it becomes the next one
 * (the one before it has started, or was cancelled), in order of following, while seats remain.
 * So C followers of a capacity-C series fill one occurrence at a time, never all of them, and
 * what they did not take by then went to whoever asked first.
 */
@Injectable()
export class SeriesFollowers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly takeSeat: TakeSeat,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A new follower: a seat in the next occurrence, if it has one free. */
  async followed(manager: EntityManager, seriesId: string, agentId: string): Promise<void> {
    await lockSeries(manager, seriesId);
    await queryRows(
      manager,
      'INSERT INTO ticketing.follows (series_id, agent_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [seriesId, agentId],
    );
    const [next] = await queryRows<EventRow>(manager, NEXT_OCCURRENCE, [seriesId, this.clock()]);
    if (next) await this.seat(manager, next, agentId);
  }

  /**
   * Seats the followers in the series' next occurrence, once per occurrence (`followers_seated_at`,
   * under the series' lock: once across replicas); returns whether it did. Run when an occurrence
   * is scheduled (the first one of a series, or one that arrives while it is the next) and by the
   * periodic pass below once the one before has started.
   */
  async seatNext(manager: EntityManager, seriesId: string): Promise<boolean> {
    await lockSeries(manager, seriesId);
    const [next] = await queryRows<EventRow & { followers_seated_at: Date | null }>(
      manager,
      NEXT_OCCURRENCE,
      [seriesId, this.clock()],
    );
    if (!next || next.followers_seated_at !== null) return false;
    const followers = await queryRows<{ agent_id: string }>(
      manager,
      'SELECT agent_id FROM ticketing.follows WHERE series_id = $1 ORDER BY followed_at, agent_id',
      [seriesId],
    );
    for (const { agent_id } of followers) await this.seat(manager, next, agent_id);
    await queryRows(manager, 'UPDATE ticketing.events SET followers_seated_at = $2 WHERE event_id = $1', [
      next.event_id,
      this.clock(),
    ]);
    return true;
  }

  /**
   * Every FOLLOWER_SEATING_INTERVAL_MS on each replica: the followed series whose next occurrence
   * has not had its followers seated yet (the one before it started since the last pass), one
   * transaction each. Reads only followed series, one index step each (events_by_series).
   */
  @Periodic<TicketingConfig>({ every: 'FOLLOWER_SEATING_INTERVAL_MS', runAtStart: true })
  async seatDue(): Promise<number> {
    const due = await queryRows<{ series_id: string }>(
      this.dataSource,
      `SELECT followed.series_id FROM (SELECT DISTINCT series_id FROM ticketing.follows) AS followed
       CROSS JOIN LATERAL (
         SELECT followers_seated_at FROM ticketing.events
         WHERE series_id = followed.series_id AND status = 'scheduled' AND starts_at > $1
           AND ticketing->>'mode' = 'free'
         ORDER BY starts_at, event_id LIMIT 1) AS next
       WHERE next.followers_seated_at IS NULL`,
      [this.clock()],
    );
    let seated = 0;
    for (const { series_id } of due)
      if (await this.outbox.run((manager) => this.seatNext(manager, series_id))) seated += 1;
    return seated;
  }

  /**
   * One follower's ticket, inside a savepoint: a full occurrence or a ticket the follower
   * already holds is skipped without undoing the rest of the transaction.
   */
  private async seat(manager: EntityManager, event: EventRow, agentId: string): Promise<void> {
    await manager.query('SAVEPOINT follower_rsvp');
    try {
      await this.takeSeat.freeIn(manager, event, agentId);
      await manager.query('RELEASE SAVEPOINT follower_rsvp');
    } catch (error) {
      await manager.query('ROLLBACK TO SAVEPOINT follower_rsvp');
      this.logger.debug(
        { eventId: event.event_id, agentId, err: error },
        'follower not RSVPed (full or already holding)',
      );
    }
  }
}

/**
 * A new occurrence and a new follower of the same series are handled by two consumers at
 * once, and the periodic pass on every replica; each reads what the others write (followers,
 * occurrences, followers_seated_at). Holding this lock while doing so serialises them, so the
 * later one always sees the earlier one's commit: no follower misses the next occurrence, and
 * its followers are seated once.
 */
export async function lockSeries(manager: EntityManager, seriesId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ticketing.series:${seriesId}`]);
}

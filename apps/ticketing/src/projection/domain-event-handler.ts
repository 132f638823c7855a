import { Inject, Injectable } from '@nestjs/common';
import {
  EventTopics,
  SeriesTopics,
  type CloudEvent,
  type EventView,
  type SeriesFollowChange,
} from '@townhall/contracts';
import { OutboxWriter, claimEventOnce, OnDomainEvent, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { CancelEventTickets } from '../tickets/cancel-event-tickets.js';
import { TakeSeat } from '../tickets/take-seat.js';
import { CLOCK, LOGGER, type Clock, type Logger } from '../tokens.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { EVENT_COLUMNS, type EventRow } from './event-row.js';
import { EventsProjection } from './events-projection.js';

export const CONSUMER = 'ticketing';

/**
 * What ticketing does when other services' state changes, each domain event applied
 * exactly once (claimEventOnce in the same transaction as the effect): keep the event
 * projection, refund a cancelled event's tickets, and RSVP series followers.
 */
@Injectable()
export class DomainEventHandler {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly events: EventsProjection,
    private readonly takeSeat: TakeSeat,
    private readonly cancelTickets: CancelEventTickets,
    private readonly waitlist: WaitlistSeats,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Two durable consumers, one per subject filter so that the server filters (several filters on
   * one consumer need NATS 2.10). Either order of arrival between the two is handled: a follow
   * RSVPs the occurrences known so far, a new occurrence RSVPs the followers known so far.
   */
  @OnDomainEvent('townhall.event.>', { durable: 'ticketing-events' })
  @OnDomainEvent('townhall.series.>', { durable: 'ticketing-series' })
  async handle(event: CloudEvent): Promise<void> {
    await this.outbox.run(async (manager) => {
      if (!(await claimEventOnce(manager, 'ticketing', CONSUMER, event.id))) return;
      switch (event.type) {
        case EventTopics.scheduled:
        case EventTopics.updated:
        case EventTopics.started:
        case EventTopics.ended:
          return this.eventChanged(manager, event.data as EventView, event.type === EventTopics.scheduled);
        case EventTopics.cancelled:
          return this.eventCancelled(manager, event.data as EventView);
        case SeriesTopics.followed:
          return this.followed(manager, event.data as SeriesFollowChange);
        case SeriesTopics.unfollowed:
          return this.unfollowed(manager, event.data as SeriesFollowChange);
        default:
          return;
      }
    });
  }

  private async eventChanged(manager: EntityManager, view: EventView, scheduled: boolean): Promise<void> {
    if (scheduled && view.seriesId) await lockSeries(manager, view.seriesId);
    await this.events.apply(manager, EventsProjection.factsOf(view));
    // An ended event sells nothing more: its line is over.
    if (view.status === 'past') await this.waitlist.closeLine(manager, view.id);
    if (!scheduled || !view.seriesId || view.ticketing.mode !== 'free') return;
    const followers = await queryRows<{ agent_id: string }>(
      manager,
      'SELECT agent_id FROM ticketing.follows WHERE series_id = $1 ORDER BY agent_id',
      [view.seriesId],
    );
    const event = await this.events.find(manager, view.id);
    if (event) for (const { agent_id } of followers) await this.rsvpFollower(manager, event, agent_id);
  }

  /** Cancels every ticket of the event and refunds each paid one in full, once. */
  private async eventCancelled(manager: EntityManager, view: EventView): Promise<void> {
    await this.events.apply(manager, EventsProjection.factsOf(view));
    await queryRows(manager, `UPDATE ticketing.events SET status = 'cancelled' WHERE event_id = $1`, [
      view.id,
    ]);
    await this.cancelTickets.cancel(manager, view);
    // Nobody gets a seat of a cancelled event: every entry still in line is expired.
    await this.waitlist.closeLine(manager, view.id);
  }

  /** A new follower gets a ticket for every future free occurrence that has a seat. */
  private async followed(manager: EntityManager, change: SeriesFollowChange): Promise<void> {
    await lockSeries(manager, change.seriesId);
    await queryRows(
      manager,
      'INSERT INTO ticketing.follows (series_id, agent_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [change.seriesId, change.agentId],
    );
    const upcoming = await queryRows<EventRow>(
      manager,
      `SELECT ${EVENT_COLUMNS} FROM ticketing.events
       WHERE series_id = $1 AND status = 'scheduled' AND starts_at > $2 AND ticketing->>'mode' = 'free' ORDER BY starts_at`,
      [change.seriesId, this.clock()],
    );
    for (const event of upcoming) await this.rsvpFollower(manager, event, change.agentId);
  }

  private async unfollowed(manager: EntityManager, change: SeriesFollowChange): Promise<void> {
    await queryRows(manager, 'DELETE FROM ticketing.follows WHERE series_id = $1 AND agent_id = $2', [
      change.seriesId,
      change.agentId,
    ]);
  }

  /**
   * One follower's ticket, inside a savepoint: a full occurrence or a ticket the follower
   * already holds is skipped without undoing the rest of the transaction.
   */
  private async rsvpFollower(manager: EntityManager, event: EventRow, agentId: string): Promise<void> {
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
 * once; each reads what the other writes (followers, occurrences). Holding this lock while
 * doing so serialises them, so the later one always sees the earlier one's commit and no
 * follower misses an occurrence.
 */
async function lockSeries(manager: EntityManager, seriesId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ticketing.series:${seriesId}`]);
}

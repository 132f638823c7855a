import { Injectable } from '@nestjs/common';
import {
  EventTopics,
  SeriesTopics,
  type DomainEventOf,
  type EventView,
  type SeriesFollowChange,
} from '@townhall/contracts';
import { OutboxWriter, claimEventOnce, OnDomainEvent, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { TICKETING_SCHEMA } from '../data-source.js';
import { lockSeries, SeriesFollowers } from '../follows/series-followers.js';
import { CancelEventTickets } from '../tickets/cancel-event-tickets.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { EventsProjection } from './events-projection.js';

const EVENTS_DURABLE = 'ticketing-events';
const SERIES_DURABLE = 'ticketing-series';

/**
 * Keeps each event's sale in step with the events service, each domain event applied exactly
 * once (claimEventOnce in the same transaction as the effect): the event projection it is sold
 * on, a cancelled event's tickets cancelled and refunded, its waitlist closed when it ends, and
 * series followers RSVPed.
 */
@Injectable()
export class EventSales {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly events: EventsProjection,
    private readonly followers: SeriesFollowers,
    private readonly cancelTickets: CancelEventTickets,
    private readonly waitlist: WaitlistSeats,
  ) {}

  /**
   * Two durable consumers, one per subject filter so that the server filters (several filters on
   * one consumer need NATS 2.10). Either order of arrival between the two is handled: a follow
   * RSVPs to the next occurrence known so far, a new occurrence that is its series' next RSVPs
   * the followers known so far (SeriesFollowers).
   */
  @OnDomainEvent('townhall.event.>', { durable: EVENTS_DURABLE })
  async applyEventChange(event: DomainEventOf<'townhall.event.>'>): Promise<void> {
    await this.once(EVENTS_DURABLE, event.id, (manager) => {
      switch (event.type) {
        case EventTopics.scheduled:
        case EventTopics.updated:
        case EventTopics.started:
        case EventTopics.ended:
          return this.eventChanged(manager, event.data, event.type === EventTopics.scheduled);
        case EventTopics.cancelled:
          return this.eventCancelled(manager, event.data);
        default:
          return Promise.resolve();
      }
    });
  }

  @OnDomainEvent('townhall.series.>', { durable: SERIES_DURABLE })
  async applySeriesChange(event: DomainEventOf<'townhall.series.>'>): Promise<void> {
    await this.once(SERIES_DURABLE, event.id, (manager) => {
      if (event.type === SeriesTopics.followed) return this.followed(manager, event.data);
      if (event.type === SeriesTopics.unfollowed) return this.unfollowed(manager, event.data);
      return Promise.resolve();
    });
  }

  /** `effect` in the transaction that claims the event for `durable`, unless it was claimed before. */
  private async once(
    durable: string,
    eventId: string,
    effect: (manager: EntityManager) => Promise<void>,
  ): Promise<void> {
    await this.outbox.run(async (manager) => {
      if (await claimEventOnce(manager, TICKETING_SCHEMA, durable, eventId)) await effect(manager);
    });
  }

  private async eventChanged(manager: EntityManager, view: EventView, scheduled: boolean): Promise<void> {
    if (scheduled && view.seriesId) await lockSeries(manager, view.seriesId);
    await this.events.apply(manager, EventsProjection.factsOf(view));
    // An ended event sells nothing more: its line is over.
    if (view.status === 'past') await this.waitlist.closeLine(manager, view.id);
    if (!scheduled || !view.seriesId || view.ticketing.mode !== 'free') return;
    await this.followers.seatNext(manager, view.seriesId);
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

  /** A new follower gets a ticket for the series' next free occurrence, if it has a seat. */
  private followed(manager: EntityManager, change: SeriesFollowChange): Promise<void> {
    return this.followers.followed(manager, change.seriesId, change.agentId);
  }

  private async unfollowed(manager: EntityManager, change: SeriesFollowChange): Promise<void> {
    await queryRows(manager, 'DELETE FROM ticketing.follows WHERE series_id = $1 AND agent_id = $2', [
      change.seriesId,
      change.agentId,
    ]);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isUuid, Events, type EventAccess, type EventView } from '@townhall/contracts';
import { Changes, queryRows, type ServiceClient } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { SERVICES } from '../tokens.js';
import { EVENT_COLUMNS, tiersOf, type EventRow } from './event-row.js';

type EventFacts = Pick<
  EventView,
  'hostId' | 'moderators' | 'status' | 'seriesId' | 'startsAt' | 'ticketing' | 'capacity' | 'updatedAt'
> & {
  eventId: string;
};

/**
 * Ticketing's copy of the events it sells, kept from townhall.event.* and, for an event it
 * has not heard of yet, fetched once from the events service. Seat counts live here too,
 * next to the capacity they are checked against. A capacity never drops below what is
 * sold: the events service refuses that, and this clamps in case of a race.
 */
@Injectable()
export class EventsProjection {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: Changes,
    @Inject(SERVICES) private readonly services: ServiceClient,
  ) {}

  /** The event as ticketing knows it, asking the events service if needed (before any transaction). */
  async ensure(eventId: string, caller: string, requestId: string): Promise<EventRow> {
    const known = await this.find(this.dataSource.manager, eventId);
    if (known) return known;
    const access: EventAccess = await this.services.send(
      Events.access,
      { eventId, agentId: caller },
      { requestId, caller },
    );
    await this.changes.run((manager) => this.apply(manager, { ...access, eventId: access.eventId }));
    const row = await this.find(this.dataSource.manager, eventId);
    if (!row) throw new DomainError('event.not_found', `No event ${eventId}`);
    return row;
  }

  async find(
    manager: EntityManager,
    eventId: string,
    options: { lock?: 'share' | 'update' } = {},
  ): Promise<EventRow | undefined> {
    const lock = options.lock === 'share' ? 'FOR SHARE' : options.lock === 'update' ? 'FOR UPDATE' : '';
    const [row] = isUuid(eventId)
      ? await queryRows<EventRow>(
          manager,
          `SELECT ${EVENT_COLUMNS} FROM ticketing.events WHERE event_id = $1 ${lock}`,
          [eventId],
        )
      : [];
    return row;
  }

  /** Upserts the event and its tiers, unless what is stored is newer. */
  async apply(manager: EntityManager, facts: EventFacts): Promise<void> {
    // One writer of an event's projection at a time (two first RSVPs and the domain event can
    // all bring the same new event). Then lock its tiers before the event row: purchases lock
    // a tier and then the event, so every writer takes the locks in that order and none can
    // deadlock another. (Without the advisory lock, a writer that waited on the first insert
    // of the event would lock the event row before tiers that did not exist when it looked.)
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ticketing.event:${facts.eventId}`]);
    await queryRows(
      manager,
      'SELECT tier_id FROM ticketing.inventory WHERE event_id = $1 ORDER BY tier_id FOR UPDATE',
      [facts.eventId],
    );
    const applied = await queryRows(
      manager,
      `INSERT INTO ticketing.events AS e (event_id, host_id, moderators, status, series_id, starts_at, ticketing, capacity, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
       ON CONFLICT (event_id) DO UPDATE SET
         host_id = EXCLUDED.host_id, moderators = EXCLUDED.moderators, series_id = EXCLUDED.series_id,
         starts_at = EXCLUDED.starts_at, ticketing = EXCLUDED.ticketing,
         capacity = GREATEST(EXCLUDED.capacity, e.sold), updated_at = EXCLUDED.updated_at,
         -- a cancelled event stays cancelled whatever arrives late
         status = CASE WHEN e.status = 'cancelled' THEN e.status ELSE EXCLUDED.status END
       WHERE e.updated_at <= EXCLUDED.updated_at
       RETURNING event_id`,
      [
        facts.eventId,
        facts.hostId,
        facts.moderators,
        facts.status,
        facts.seriesId,
        facts.startsAt,
        JSON.stringify(facts.ticketing),
        facts.capacity,
        facts.updatedAt,
      ],
    );
    if (applied.length === 0) return;
    const tiers = tiersOf(facts.ticketing, facts.capacity);
    await queryRows(
      manager,
      `INSERT INTO ticketing.inventory AS i (event_id, tier_id, price, capacity)
       SELECT $1, t.tier_id, t.price::numeric, t.capacity FROM unnest($2::text[], $3::text[], $4::int[]) AS t(tier_id, price, capacity)
       ON CONFLICT (event_id, tier_id) DO UPDATE SET price = EXCLUDED.price, capacity = GREATEST(EXCLUDED.capacity, i.sold)`,
      [facts.eventId, tiers.map((t) => t.tierId), tiers.map((t) => t.price), tiers.map((t) => t.capacity)],
    );
    // A tier the event no longer offers sells nothing more.
    await queryRows(
      manager,
      `UPDATE ticketing.inventory SET capacity = sold WHERE event_id = $1 AND NOT (tier_id = ANY($2::text[]))`,
      [facts.eventId, tiers.map((t) => t.tierId)],
    );
  }

  static factsOf(view: EventView): EventFacts {
    return { ...view, eventId: view.id };
  }
}

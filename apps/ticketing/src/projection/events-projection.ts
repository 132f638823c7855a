import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_OFFER_MINUTES,
  DomainError,
  isUuid,
  Events,
  type AccessMode,
  type EventAccess,
  type EventView,
} from '@townhall/contracts';
import {
  OutboxWriter,
  preparedStatement,
  queryRows,
  SERVICE_CLIENT,
  type ServiceClient,
} from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { EVENT_COLUMNS, tiersOf, type EventRow, type TierOffer } from './event-row.js';

type EventFacts = Pick<
  EventView,
  | 'hostId'
  | 'moderators'
  | 'status'
  | 'seriesId'
  | 'startsAt'
  | 'ticketing'
  | 'capacity'
  | 'version'
  | 'updatedAt'
> & {
  eventId: string;
  /** Absent from domain events published before the field existed. */
  offerMinutes?: number | undefined;
  /** Absent from domain events published before the field existed (such events are open). */
  access?: AccessMode | undefined;
};

/**
 * Ticketing's copy of the events it sells, kept from townhall.event.* and, for an event it
 * has not heard of yet, fetched once from the events service. Seat counts live here too,
 * next to the capacity they are checked against, and so a capacity change is decided here
 * (changeCapacity), under the same locks as a purchase. Each row carries the event version
 * it is at: nothing older overwrites it.
 */
@Injectable()
export class EventsProjection {
  /** The read every RSVP starts with: a prepared statement (no parse and plan per call). */
  private readonly known: (values: unknown[]) => Promise<EventRow[]>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
    private readonly waitlist: WaitlistSeats,
  ) {
    this.known = preparedStatement(
      dataSource,
      'ticketing.event',
      `SELECT ${EVENT_COLUMNS} FROM ticketing.events WHERE event_id = $1`,
    );
  }

  /** The event as ticketing knows it, asking the events service if needed (before any transaction). */
  async ensure(eventId: string, caller: string, requestId: string): Promise<EventRow> {
    const [known] = isUuid(eventId) ? await this.known([eventId]) : [];
    if (known) return known;
    const access: EventAccess = await this.services.send(
      Events.access,
      { eventId, agentId: caller },
      { requestId, caller },
    );
    await this.outbox.run((manager) => this.apply(manager, { ...access, eventId: access.eventId }));
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

  /**
   * Upserts the event and its tiers, unless what is stored is newer. A capacity that arrives
   * below what is sold (only possible if a capacity decision and a domain event cross) is
   * clamped to it: the seats sold stay valid.
   */
  async apply(manager: EntityManager, facts: EventFacts): Promise<void> {
    await lockEventForWrite(manager, facts.eventId);
    const applied = await queryRows(
      manager,
      `INSERT INTO ticketing.events AS e (event_id, host_id, moderators, status, series_id, starts_at, ticketing, capacity, version, updated_at, offer_minutes, access)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)
       ON CONFLICT (event_id) DO UPDATE SET
         host_id = EXCLUDED.host_id, moderators = EXCLUDED.moderators, series_id = EXCLUDED.series_id,
         starts_at = EXCLUDED.starts_at, ticketing = EXCLUDED.ticketing,
         capacity = GREATEST(EXCLUDED.capacity, e.sold), version = EXCLUDED.version, updated_at = EXCLUDED.updated_at,
         offer_minutes = EXCLUDED.offer_minutes, access = EXCLUDED.access,
         -- a cancelled event stays cancelled whatever arrives late
         status = CASE WHEN e.status = 'cancelled' THEN e.status ELSE EXCLUDED.status END
       WHERE e.version <= EXCLUDED.version
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
        // Domain events published before events carried a version count as the oldest.
        facts.version ?? 0,
        facts.updatedAt,
        facts.offerMinutes ?? DEFAULT_OFFER_MINUTES,
        facts.access ?? 'open',
      ],
    );
    if (applied.length === 0) return;
    await upsertTiers(manager, facts.eventId, tiersOf(facts.ticketing, facts.capacity), 'clamp');
    // Seats the line can take now (a capacity that arrived here first): handed out under these locks.
    await this.waitlist.fill(manager, facts.eventId);
  }

  /**
   * Decides a new capacity (and tier set) for the events service before it records it: refused
   * with 409 `event.capacity_below_sold` if the total or any tier has sold more. The event's
   * tiers and row are locked as a purchase locks them, so no RSVP can take a seat between the
   * check and the change. `applied: false` when a newer version was decided already.
   */
  async decideCapacity(change: CapacityChange, caller: string, requestId: string): Promise<boolean> {
    const event = await this.ensure(change.eventId, caller, requestId);
    if (event.host_id !== caller)
      throw new DomainError('role.forbidden', 'Only the host can change capacity');
    return this.outbox.run((manager) => this.changeCapacity(manager, change));
  }

  private async changeCapacity(manager: EntityManager, change: CapacityChange): Promise<boolean> {
    await lockEventForWrite(manager, change.eventId);
    const event = await this.find(manager, change.eventId, { lock: 'update' });
    if (!event) throw new DomainError('event.not_found', `No event ${change.eventId}`);
    if (event.version > change.version) return false;
    const tiers = tiersOf(change.ticketing, change.capacity);
    const sold = await queryRows<{ tier_id: string; sold: number }>(
      manager,
      'SELECT tier_id, sold FROM ticketing.inventory WHERE event_id = $1 ORDER BY tier_id',
      [change.eventId],
    );
    if (event.sold > change.capacity)
      throw belowSold(`${event.sold} tickets are sold; the capacity cannot go below that`);
    for (const tier of sold) {
      const offer = tiers.find((candidate) => candidate.tierId === tier.tier_id);
      if (offer && tier.sold > offer.capacity)
        throw belowSold(
          `tier ${tier.tier_id} has ${tier.sold} tickets sold; its capacity cannot go below that`,
        );
    }
    await queryRows(
      manager,
      `UPDATE ticketing.events SET capacity = $2, ticketing = $3::jsonb, version = $4 WHERE event_id = $1`,
      [change.eventId, change.capacity, JSON.stringify(change.ticketing), change.version],
    );
    await upsertTiers(manager, change.eventId, tiers, 'exact');
    // A capacity raised: the new seats go to the waitlist first, in the order it joined.
    await this.waitlist.fill(manager, change.eventId);
    return true;
  }

  static factsOf(view: EventView): EventFacts {
    return { ...view, eventId: view.id };
  }
}

export type CapacityChange = Pick<EventView, 'capacity' | 'ticketing' | 'version'> & { eventId: string };

function belowSold(detail: string): DomainError {
  return new DomainError('event.capacity_below_sold', detail);
}

/**
 * One writer of an event's projection at a time (two first RSVPs, a capacity decision and the
 * domain event can all bring the same new event). Then its tiers are locked before the event
 * row: purchases lock a tier and then the event, so every writer takes the locks in that order
 * and none can deadlock another. (Without the advisory lock, a writer that waited on the first
 * insert of the event would lock the event row before tiers that did not exist when it looked.)
 */
async function lockEventForWrite(manager: EntityManager, eventId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ticketing.event:${eventId}`]);
  await queryRows(
    manager,
    'SELECT tier_id FROM ticketing.inventory WHERE event_id = $1 ORDER BY tier_id FOR UPDATE',
    [eventId],
  );
}

/**
 * Writes the tiers an event sells. `exact` after a decision that checked them against what is
 * sold; `clamp` for a projected capacity, which never drops below what is sold. A tier the
 * event no longer offers sells nothing more.
 */
async function upsertTiers(
  manager: EntityManager,
  eventId: string,
  tiers: TierOffer[],
  mode: 'exact' | 'clamp',
): Promise<void> {
  await queryRows(
    manager,
    `INSERT INTO ticketing.inventory AS i (event_id, tier_id, price, capacity)
     SELECT $1, t.tier_id, t.price::numeric, t.capacity FROM unnest($2::text[], $3::text[], $4::int[]) AS t(tier_id, price, capacity)
     ON CONFLICT (event_id, tier_id) DO UPDATE SET price = EXCLUDED.price,
       capacity = ${mode === 'exact' ? 'EXCLUDED.capacity' : 'GREATEST(EXCLUDED.capacity, i.sold)'}`,
    [eventId, tiers.map((t) => t.tierId), tiers.map((t) => t.price), tiers.map((t) => t.capacity)],
  );
  await queryRows(
    manager,
    `UPDATE ticketing.inventory SET capacity = sold WHERE event_id = $1 AND NOT (tier_id = ANY($2::text[]))`,
    [eventId, tiers.map((t) => t.tierId)],
  );
}

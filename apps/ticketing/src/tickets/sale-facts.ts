import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '@townhall/contracts';
import { CLOCK, type Clock, preparedStatement } from '@townhall/platform/service';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { admittedSql } from '../access/admission.js';
import { eventColumns, type EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import type { TicketRow } from './ticket-row.js';

/** What an RSVP needs to know before it writes anything. */
export interface SaleFacts {
  event: EventRow;
  /** The caller's live ticket (ticketing.live_ticket, live_ticket.sql): active, or pending while its payment settles. */
  held: TicketRow | undefined;
  /**
   * Seats left per tier (ticketing.seats_left, seats_left.sql): none means sold out. Read without locks, so it only lets a sale that is over say so at once,
   * before any ledger work and without queueing for the hot row; ticketing.take_seat's
   * conditional updates stay the final word on every seat sold.
   */
  seatsLeft: ReadonlyMap<string, number>;
  /** The tier whose seat a live waitlist offer holds for the caller, if any. */
  offered: string | undefined;
  /** Whether the event admits the caller (access/admission.ts): false only for an event that is not open. */
  admitted: boolean;
}

/**
 * A purchase decided without a read of its sale (Rsvp: the row remembered by SaleFactsReader)
 * that must be decided again on one: the row is no longer the event's, or the purchase would be
 * refused, which only a read can say for sure.
 */
export class DecideOnRead extends Error {
  constructor() {
    super('decide the sale again on a read');
  }
}

/** How many events' rows SaleFactsReader remembers (an LRU), about 1 KB each. */
const REMEMBERED_EVENTS = 10_000;

/** Whether the caller can buy a seat of the tier now, as far as the facts tell. */
export function canBuy(facts: SaleFacts, tierId: string): boolean {
  return facts.offered === tierId || (facts.seatsLeft.get(tierId) ?? 0) > 0;
}

/** The tiers the caller can buy now. */
export function buyableTiers(facts: SaleFacts): Set<string> {
  return new Set(
    [...facts.seatsLeft.keys(), ...(facts.offered ? [facts.offered] : [])].filter((tier) =>
      canBuy(facts, tier),
    ),
  );
}

type SaleRow = EventRow & {
  seats_left: Record<string, number>;
  offered_tier: string | null;
  admitted: boolean;
  held_id: string | null;
  held_tier_id: string | null;
  held_status: TicketRow['status'] | null;
  held_price: string | null;
  held_asset: string | null;
  held_network: string | null;
  held_transaction: string | null;
  held_code: string | null;
  held_created_at: Date | null;
  held_receipt: TicketRow['receipt'];
};

/**
 * The one read an RSVP starts with (issue [17] item 0): the event, the caller's live ticket and
 * the tiers it can buy, in one prepared statement on primary keys and partial unique indexes.
 * In a sellout race every loser is then refused by this read alone (measured: 195 losers of a
 * 200-buyer race queued up to 1.3 s for four statements each and a rolled-back purchase).
 */
@Injectable()
export class SaleFactsReader {
  private readonly sale: (values: unknown[]) => Promise<SaleRow[]>;
  /** The event's row as the last read of its sale gave it, per event. */
  private readonly rows = new LRUCache<string, EventRow>({ max: REMEMBERED_EVENTS });

  constructor(
    dataSource: DataSource,
    private readonly events: EventsProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.sale = preparedStatement(
      dataSource,
      'ticketing.sale',
      `SELECT ${eventColumns('e')},
         (SELECT COALESCE(jsonb_object_agg(i.tier_id, ticketing.seats_left(i, e)), '{}')
            FROM ticketing.inventory i WHERE i.event_id = e.event_id) AS seats_left,
         (SELECT w.tier_id FROM ticketing.waitlist w
           WHERE w.event_id = e.event_id AND w.agent_id = $2 AND w.status = 'offered'
             AND w.offer_expires_at > $3) AS offered_tier,
         ${admittedSql('e', '$2')} AS admitted,
         t.id AS held_id, t.tier_id AS held_tier_id, t.status AS held_status,
         t.price::text AS held_price, t.asset AS held_asset, t.network AS held_network,
         t.transaction AS held_transaction, t.code AS held_code, t.created_at AS held_created_at,
         t.receipt AS held_receipt
       FROM ticketing.events e
       LEFT JOIN LATERAL ticketing.live_ticket(e.event_id, $2) t ON true
       WHERE e.event_id = $1`,
    );
  }

  /**
   * The event's row as the last read of its sale in this process gave it: a guess, which a
   * purchase decided on it has ticketing.purchase check against the row's version now.
   */
  rememberedEvent(eventId: string): EventRow | undefined {
    return this.rows.get(eventId);
  }

  /** The facts of a sale; an event ticketing has not heard of yet is fetched first (EventsProjection.ensure). */
  async read(eventId: string, caller: string, requestId: string): Promise<SaleFacts> {
    const known = isUuid(eventId) ? await this.first(eventId, caller) : undefined;
    if (known) return known;
    await this.events.ensure(eventId, caller, requestId);
    const fetched = await this.first(eventId, caller);
    if (!fetched) throw new Error(`expected ticketing.events to hold ${eventId} once ensured`);
    return fetched;
  }

  private async first(eventId: string, caller: string): Promise<SaleFacts | undefined> {
    const [row] = await this.sale([eventId, caller, this.clock()]);
    if (!row) return undefined;
    const {
      seats_left,
      offered_tier,
      admitted,
      held_id,
      held_tier_id,
      held_status,
      held_price,
      held_asset,
      held_network,
      held_transaction,
      held_code,
      held_created_at,
      held_receipt,
      ...event
    } = row;
    this.rows.set(eventId, event);
    return {
      event,
      seatsLeft: new Map(Object.entries(seats_left)),
      offered: offered_tier ?? undefined,
      admitted,
      held:
        held_id === null
          ? undefined
          : {
              id: held_id,
              event_id: event.event_id,
              tier_id: held_tier_id!,
              holder_id: caller,
              status: held_status!,
              price: held_price!,
              asset: held_asset,
              network: held_network,
              transaction: held_transaction,
              code: held_code,
              created_at: held_created_at!,
              cancelled_at: null,
              receipt: held_receipt,
            },
    };
  }
}

import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { isSecondLiveTicket } from '../db/functions.js';
import { TICKET_COLUMNS, type TicketRow } from './ticket-row.js';

// Seats are taken by ticketing.take_seat (db/functions.ts takeSeat), the one owner of "take a
// seat"; what follows frees them, locks them, and writes the ticket that holds one.

/**
 * Locks the seat rows of every tier of the event, in tier order, as the events projection's writers
 * do: what every path that frees seats or hands them to the waitlist takes first, before the
 * event's row. A purchase locks one tier and then the event, so none of them can deadlock it, and
 * a waitlist join (which locks its tier) never misses a seat freed meanwhile.
 */
export async function lockSeats(manager: EntityManager, eventId: string): Promise<void> {
  await queryRows(
    manager,
    'SELECT tier_id FROM ticketing.inventory WHERE event_id = $1 ORDER BY tier_id FOR UPDATE',
    [eventId],
  );
}

export async function releaseSeat(manager: EntityManager, eventId: string, tierId: string): Promise<void> {
  await queryRows(
    manager,
    `UPDATE ticketing.inventory SET sold = sold - 1 WHERE event_id = $1 AND tier_id = $2`,
    [eventId, tierId],
  );
  await queryRows(manager, `UPDATE ticketing.events SET sold = sold - 1 WHERE event_id = $1`, [eventId]);
}

/** Thrown inside a purchase when the agent already holds a live ticket (the unique index said so). */
export class AlreadyHolding extends Error {}

export async function insertTicket(
  manager: EntityManager,
  ticket: {
    eventId: string;
    tierId: string;
    holderId: string;
    price: string;
    asset: string | null;
    status: 'active' | 'pending';
    /** The host's code it was bought with (counted by the caller, ticketing.use_code). */
    code?: string | null;
  },
): Promise<TicketRow> {
  try {
    const [row] = await queryRows<TicketRow>(
      manager,
      `INSERT INTO ticketing.tickets (event_id, tier_id, holder_id, price, asset, status, code)
       VALUES ($1, $2, $3, $4::numeric, $5, $6, $7) RETURNING ${TICKET_COLUMNS}`,
      [
        ticket.eventId,
        ticket.tierId,
        ticket.holderId,
        ticket.price,
        ticket.asset,
        ticket.status,
        ticket.code ?? null,
      ],
    );
    return row!;
  } catch (error) {
    if (isSecondLiveTicket(error)) throw new AlreadyHolding();
    throw error;
  }
}

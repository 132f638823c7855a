import { DomainError } from '@townhall/contracts';
import { queryRows, sqlState } from '@townhall/platform/service';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { TICKET_COLUMNS, type TicketRow } from './ticket-row.js';

/**
 * Seats are taken by ticketing.take_seat (migration 1764300000000-purchase), the one owner of
 * "take a seat": conditional updates (`sold < capacity`), the tier first and then the event
 * total, always in that order; under any concurrency a seat that is not there is never sold,
 * and the check constraints would refuse it if the code ever tried. ticketing.purchase calls
 * it too.
 */
export async function takeSeat(manager: EntityManager, eventId: string, tierId: string): Promise<void> {
  try {
    await queryRows(manager, 'SELECT ticketing.take_seat($1, $2)', [eventId, tierId]);
  } catch (error) {
    throw refusalOf(error, tierId) ?? error;
  }
}

/** Why ticketing's SQL functions refused (SQLSTATE TH001: its name, and for 'not_on_sale' the status). */
export type PurchaseRefusal = 'nonce_reused' | 'insufficient_funds' | 'sold_out' | 'not_on_sale';

export function purchaseRefusal(error: unknown): { refusal: PurchaseRefusal; detail?: string } | undefined {
  if (sqlState(error).code !== 'TH001') return undefined;
  const { message, detail } = (error instanceof QueryFailedError ? error.driverError : error) as {
    message: string;
    detail?: string;
  };
  return { refusal: message as PurchaseRefusal, ...(detail === undefined ? {} : { detail }) };
}

/** A seat that cannot be taken, as the DomainError the client gets. */
export function refusalOf(error: unknown, tierId: string): DomainError | undefined {
  const refused = purchaseRefusal(error);
  if (refused?.refusal === 'not_on_sale')
    return new DomainError('ticket.not_on_sale', `The event is ${refused.detail}`);
  if (refused?.refusal === 'sold_out')
    return new DomainError('capacity.sold_out', `No seat is left in tier ${tierId}`);
  return undefined;
}

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
  },
): Promise<TicketRow> {
  try {
    const [row] = await queryRows<TicketRow>(
      manager,
      `INSERT INTO ticketing.tickets (event_id, tier_id, holder_id, price, asset, status)
       VALUES ($1, $2, $3, $4::numeric, $5, $6) RETURNING ${TICKET_COLUMNS}`,
      [ticket.eventId, ticket.tierId, ticket.holderId, ticket.price, ticket.asset, ticket.status],
    );
    return row!;
  } catch (error) {
    const { code, constraint } = sqlState(error);
    if (code === '23505' && constraint === 'tickets_one_live_per_agent') throw new AlreadyHolding();
    throw error;
  }
}

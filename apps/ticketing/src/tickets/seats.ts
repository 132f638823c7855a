import { DomainError } from '@townhall/contracts';
import { queryRows, sqlState } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { TICKET_COLUMNS, type TicketRow } from './ticket-row.js';

/**
 * Seats are taken with conditional updates (`sold < capacity`), the tier first and then the
 * event total, always in that order; under any concurrency a seat that is not there is
 * never sold, and the check constraints would refuse it if the code ever tried.
 */
export async function takeSeat(manager: EntityManager, eventId: string, tierId: string): Promise<void> {
  const tier = await queryRows(
    manager,
    `UPDATE ticketing.inventory SET sold = sold + 1 WHERE event_id = $1 AND tier_id = $2 AND sold < capacity RETURNING sold`,
    [eventId, tierId],
  );
  const total =
    tier.length > 0
      ? await queryRows(
          manager,
          `UPDATE ticketing.events SET sold = sold + 1
           WHERE event_id = $1 AND sold < capacity AND status IN ('scheduled', 'live') RETURNING sold`,
          [eventId],
        )
      : [];
  if (tier.length > 0 && total.length === 0) {
    const [event] = await queryRows<{ status: string }>(
      manager,
      'SELECT status FROM ticketing.events WHERE event_id = $1',
      [eventId],
    );
    if (event && event.status !== 'scheduled' && event.status !== 'live') {
      throw new DomainError('ticket.not_on_sale', `The event is ${event.status}`);
    }
  }
  if (tier.length === 0 || total.length === 0)
    throw new DomainError('capacity.sold_out', `No seat is left in tier ${tierId}`);
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

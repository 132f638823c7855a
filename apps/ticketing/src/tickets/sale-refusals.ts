import { DomainError } from '@townhall/contracts';
import type { Refused } from '@townhall/platform/service';
import type { SeatRefusal } from '../db/functions.js';
import type { EventRow } from '../projection/event-row.js';

// The answers of a sale that cannot sell, built here only: whether it can is the database's to
// say (ticketing.on_sale, ticketing.seats_left, ticketing.take_seat's refusals), and every path
// (an RSVP, its 402, the seat gate, a waitlist join, an approval) answers it the same way.

/** RSVPs, waitlist joins and approvals are taken while the event is on sale (`on_sale`, as read). */
export function requireOnSale(event: Pick<EventRow, 'status' | 'on_sale'>): void {
  if (!event.on_sale) throw notOnSale(event.status);
}

export function notOnSale(status: string | null | undefined): DomainError {
  return new DomainError('ticket.not_on_sale', `The event is ${status ?? 'not on sale'}`);
}

/** No seat left: in the tier named, or in any tier the caller could pay for. */
export function soldOut(tierId?: string): DomainError {
  return new DomainError(
    'capacity.sold_out',
    tierId === undefined ? 'No seat is left in this event' : `No seat is left in tier ${tierId}`,
  );
}

/** A seat ticketing.take_seat refused, as the problem the client gets. */
export function seatProblem(
  refused: Pick<Refused<SeatRefusal>, 'refusal' | 'detail'>,
  tierId: string,
): DomainError {
  return refused.refusal === 'not_on_sale' ? notOnSale(refused.detail) : soldOut(tierId);
}

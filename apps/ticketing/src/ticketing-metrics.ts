import { counter } from '@townhall/platform/service';

/** Tickets issued by an RSVP (free or paid), counted once their transaction committed. */
export const ticketsSold = counter(
  'townhall_tickets_sold_total',
  'Tickets issued by RSVPs, by ticketing mode (free, single, tiered)',
  ['mode'],
);

/** x402 payments settled (the money moved and the ticket was issued). */
export const paymentsSettled = counter(
  'townhall_payments_settled_total',
  'x402 payments settled for tickets, by facilitator and asset',
  ['facilitator', 'asset'],
);

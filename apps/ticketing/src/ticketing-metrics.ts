import { Counter } from 'prom-client';
import { metricsRegistry } from '@townhall/platform/service';

/** Tickets issued by an RSVP (free or paid), counted once their transaction committed. */
export const ticketsSold = new Counter({
  name: 'townhall_tickets_sold_total',
  help: 'Tickets issued by RSVPs, by ticketing mode (free, single, tiered)',
  labelNames: ['mode'] as const,
  registers: [metricsRegistry],
});

/** x402 payments settled (the money moved and the ticket was issued). */
export const paymentsSettled = new Counter({
  name: 'townhall_payments_settled_total',
  help: 'x402 payments settled for tickets, by facilitator and asset',
  labelNames: ['facilitator', 'asset'] as const,
  registers: [metricsRegistry],
});

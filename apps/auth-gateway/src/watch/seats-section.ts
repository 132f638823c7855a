import { GENERAL_TIER, type EventView } from '@townhall/contracts';
import { html, type Markup } from './markup.js';

/** One tier's seats as the page shows them. */
export interface TierSeats {
  id: string;
  name: string;
  capacity: number;
  left: number;
}

/**
 * Seats left per tier, from the event's capacity, its tiers and its `counts.ticketsSold`: a tier
 * sells at most its own capacity, and all tiers together at most the event's. watch-script.ts
 * `seatsOf` computes the same from a fresh event read when tickets change.
 */
export function seatsOf(event: EventView): TierSeats[] {
  const sold = event.counts.ticketsSold;
  const soldOf = (tier: string) => Math.max(0, sold[tier] ?? 0);
  const totalSold = Object.keys(sold).reduce((sum, tier) => sum + soldOf(tier), 0);
  const eventLeft = Math.max(0, event.capacity - totalSold);
  const ticketing = event.ticketing;
  if (ticketing.mode !== 'tiered')
    return [
      {
        id: GENERAL_TIER,
        name: ticketing.mode === 'free' ? 'Free admission' : 'Admission',
        capacity: event.capacity,
        left: eventLeft,
      },
    ];
  return ticketing.tiers.map((tier) => ({
    id: tier.id,
    name: tier.name,
    capacity: tier.capacity,
    left: Math.min(eventLeft, Math.max(0, tier.capacity - soldOf(tier.id))),
  }));
}

/** Seats left per tier, while the event is scheduled or live (after it, or cancelled, there are none to take). */
export function seatsSection(event: EventView): Markup | null {
  if (event.status !== 'scheduled' && event.status !== 'live') return null;
  return html`<section id="seats" aria-labelledby="seats-heading">
    <h2 id="seats-heading">Seats</h2>
    <ul class="seats">
      ${seatsOf(event).map(
        (tier) =>
          html`<li data-tier=${tier.id}>
            <span class="tier">${tier.name}</span>: <span class="left">${tier.left}</span>${seatsLeftText(tier)}
          </li>`,
      )}
    </ul>
  </section>`;
}

/** ` of 500 seats left`: what follows the number of seats left. */
export function seatsLeftText(tier: TierSeats): string {
  return ` of ${tier.capacity} ${tier.capacity === 1 ? 'seat' : 'seats'} left`;
}

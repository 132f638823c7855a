import type { EventView } from '@townhall/contracts';
import { html, type Markup } from './markup.js';
import { seatsLeftText, seatsOf } from './page-text.js';
import { tierPrice } from './ticket-prices.js';

/**
 * Seats left per tier, each with its price, while the event is scheduled or live (after it, or cancelled, there are none
 * to take); the tiers offered only, so none when every tier is hidden (sold only with a code).
 */
export function seatsSection(event: EventView): Markup | null {
  if (event.status !== 'scheduled' && event.status !== 'live') return null;
  const seats = seatsOf(event);
  if (seats.length === 0) return null;
  return html`<section id="seats" aria-labelledby="seats-heading">
    <h2 id="seats-heading">Seats</h2>
    <ul class="seats">
      ${seats.map((tier) => {
        const price = tierPrice(event.ticketing, tier.id);
        return html`<li data-tier=${tier.id}>
            <span class="tier">${tier.name}</span>${price === null ? null : ' '}${price === null ? null : html`<span class="price">(${price})</span>`}: <span class="left">${tier.left}</span>${seatsLeftText(tier)}
          </li>`;
      })}
    </ul>
  </section>`;
}

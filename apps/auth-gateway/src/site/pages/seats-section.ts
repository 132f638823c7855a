import type { EventView } from '@townhall/contracts';
import { html, type Markup } from './markup.js';
import { seatsLeftText, seatsOf } from './page-text.js';

/**
 * Seats left per tier, while the event is scheduled or live (after it, or cancelled, there are none
 * to take); the tiers offered only, so none when every tier is hidden (sold only with a code).
 */
export function seatsSection(event: EventView): Markup | null {
  if (event.status !== 'scheduled' && event.status !== 'live') return null;
  const seats = seatsOf(event);
  if (seats.length === 0) return null;
  return html`<section id="seats" aria-labelledby="seats-heading">
    <h2 id="seats-heading">Seats</h2>
    <ul class="seats">
      ${seats.map(
        (tier) =>
          html`<li data-tier=${tier.id}>
            <span class="tier">${tier.name}</span>: <span class="left">${tier.left}</span>${seatsLeftText(tier)}
          </li>`,
      )}
    </ul>
  </section>`;
}

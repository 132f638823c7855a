import type { AgendaItem, EventView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';

const MINUTE = 60_000;

/** The agenda in order, each item at its time of day in the event's zone when it has one. */
export function agendaSection(event: EventView, clock: EventClock): Markup {
  return html`<section id="agenda" aria-labelledby="agenda-heading">
    <h2 id="agenda-heading">Agenda</h2>
    ${
      event.agenda.length === 0
        ? html`<p class="empty">No agenda.</p>`
        : html`<ol class="agenda">
          ${event.agenda.map((item) => agendaItem(item, event.startsAt, clock))}
        </ol>`
    }
  </section>`;
}

function agendaItem(item: AgendaItem, startsAt: string, clock: EventClock): Markup {
  const when = whenOf(item, startsAt, clock);
  return html`<li>
    ${when ? html`<span class="when">${when}</span>` : null}${when ? ' ' : null}<span class="title">${item.title}</span>
  </li>`;
}

function whenOf(item: AgendaItem, startsAt: string, clock: EventClock): string | undefined {
  if (item.startOffsetMinutes === undefined) return undefined;
  const start = new Date(startsAt).getTime() + item.startOffsetMinutes * MINUTE;
  const from = clock.time(new Date(start));
  if (item.durationMinutes === undefined) return from;
  return `${from}–${clock.time(new Date(start + item.durationMinutes * MINUTE))}`;
}

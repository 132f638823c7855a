import type { EventView } from '@townhall/contracts';
import { EventClock } from './event-clock.js';
import { endOf, momentTime, startOf } from './event-times.js';
import { html, type Markup } from './markup.js';
import { pageDocument } from './page-layout.js';
import { admissionPrice } from './ticket-prices.js';
import { PAST_DAYS, type IndexState } from './watch-state.js';

/**
 * `GET /` for a browser: what is live and what is coming, each linking to its watch page, and
 * what ended lately, with its recording where one is published.
 */
export function indexPage(state: IndexState): Markup {
  return pageDocument({
    title: 'Townhall: live and upcoming events',
    main: html`<main id="main" class="index">
      <h1>Live and upcoming events</h1>
      ${eventList('live', 'Live now', 'Nothing is live right now.', state.live, eventCard)}
      ${eventList('upcoming', 'Upcoming', 'Nothing is scheduled.', state.upcoming, eventCard)}
      ${eventList('past', 'Recently ended', `Nothing has ended in the last ${PAST_DAYS} days.`, state.past, pastCard, 'most recent')}
    </main>`,
  });
}

function eventList<T>(
  id: string,
  heading: string,
  none: string,
  events: { items: T[]; more: boolean },
  card: (item: T) => Markup,
  /** Which of them the list shows when there are more. */
  which = 'first',
): Markup {
  return html`<section id=${id} aria-labelledby=${`${id}-heading`}>
    <h2 id=${`${id}-heading`}>${heading}</h2>
    ${
      events.items.length === 0
        ? html`<p class="empty">${none}</p>`
        : html`<ul class="events">
          ${events.items.map((item) => card(item))}
        </ul>`
    }
    ${
      events.more
        ? html`<p class="note">The ${which} ${events.items.length} by start time; <a href="/docs">the API</a> lists them all.</p>`
        : null
    }
  </section>`;
}

/**
 * An event: its title linking to its watch page, when it starts (when it started, once it has:
 * event-times.ts) and, once it has ended, when it did; what a ticket costs while one can be had.
 */
function eventCard(event: EventView, recording: Markup | null = null): Markup {
  const clock = new EventClock(event.timezone);
  const start = startOf(event);
  const end = event.endedAt === null ? null : endOf(event);
  const price =
    event.status === 'scheduled' || event.status === 'live'
      ? html`<span class="price">${' · '}${admissionPrice(event.ticketing)}</span>`
      : null;
  return html`<li class="event-card">
    <a href=${`/events/${encodeURIComponent(event.id)}/watch`}>${event.title}</a>${' '}
    <span class="when">${start.label} ${momentTime(start, clock)}${end ? html`<span>${' · '}${end.label} ${momentTime(end, clock)}</span>` : null}${price}${recording}</span>
  </li>`;
}

/** A past event: its recording, once published, is a section of its watch page. */
function pastCard(event: EventView): Markup {
  return eventCard(
    event,
    event.recordingPublishedAt !== null
      ? html`<span>${' · '}<a href=${`/events/${encodeURIComponent(event.id)}/watch#recording`}>Recording</a></span>`
      : null,
  );
}

import type { EventView } from '@townhall/contracts';
import { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';
import { pageDocument } from './page-layout.js';
import type { IndexState } from './watch-state.js';

/** `GET /` for a browser: what is live and what is coming, each linking to its watch page. */
export function indexPage(state: IndexState): Markup {
  return pageDocument({
    title: 'Townhall: live and upcoming events',
    main: html`<main id="main" class="index">
      <h1>Live and upcoming events</h1>
      ${eventList('live', 'Live now', 'Nothing is live right now.', state.live)}
      ${eventList('upcoming', 'Upcoming', 'Nothing is scheduled.', state.upcoming)}
    </main>`,
  });
}

function eventList(id: string, heading: string, none: string, events: IndexState['live']): Markup {
  return html`<section id=${id} aria-labelledby=${`${id}-heading`}>
    <h2 id=${`${id}-heading`}>${heading}</h2>
    ${
      events.items.length === 0
        ? html`<p class="empty">${none}</p>`
        : html`<ul class="events">
          ${events.items.map(eventCard)}
        </ul>`
    }
    ${
      events.more
        ? html`<p class="note">The first ${events.items.length} by start time; <a href="/docs">the API</a> lists them all.</p>`
        : null
    }
  </section>`;
}

function eventCard(event: EventView): Markup {
  const clock = new EventClock(event.timezone);
  return html`<li class="event-card">
    <a href=${`/events/${encodeURIComponent(event.id)}/watch`}>${event.title}</a>${' '}
    <span class="when"><time datetime=${event.startsAt}>${clock.dateTime(event.startsAt)}</time></span>
  </li>`;
}

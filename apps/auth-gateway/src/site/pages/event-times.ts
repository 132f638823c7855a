import type { EventView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';

/**
 * A start or an end of an event as a page says it. The host starts and ends an event by hand, so
 * what happened differs from the plan (scheduled for 23:06, started at 22:56): once the event has
 * started (ended), the page says when it did, labelled `Started` (`Ended`); until then the time it
 * is scheduled for, labelled so, never the one passed off as the other.
 */
export interface EventMoment {
  label: 'Started' | 'Scheduled start' | 'Ended' | 'Scheduled end';
  at: string;
}

export function startOf(event: Pick<EventView, 'startsAt' | 'startedAt'>): EventMoment {
  return event.startedAt === null
    ? { label: 'Scheduled start', at: event.startsAt }
    : { label: 'Started', at: event.startedAt };
}

export function endOf(event: Pick<EventView, 'endsAt' | 'endedAt'>): EventMoment {
  return event.endedAt === null
    ? { label: 'Scheduled end', at: event.endsAt }
    : { label: 'Ended', at: event.endedAt };
}

/** The moment's time in the event's zone, machine-readable in `datetime`. */
export function momentTime(moment: EventMoment, clock: EventClock): Markup {
  return html`<time datetime=${moment.at}>${clock.dateTime(moment.at)}</time>`;
}

import type { AccessMode, EventStatus, EventView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { endOf, momentTime, startOf, type EventMoment } from './event-times.js';
import { html, type Markup } from './markup.js';

export const STATUS_LABELS: Record<EventStatus, string> = {
  scheduled: 'Scheduled',
  live: 'Live',
  past: 'Ended',
  cancelled: 'Cancelled',
};

/** Said next to the status of an event only invited agents may RSVP to (`access: invite`). */
export const INVITE_ONLY_LABEL = 'Invite only';

/** Said next to the status of an event whose RSVP asks the host first (`access: approval`). */
export const APPROVAL_REQUIRED_LABEL = 'Approval required';

/** What is said of each access but `open` (anyone may RSVP, which needs no saying). */
const ACCESS_LABELS: Partial<Record<AccessMode, string>> = {
  approval: APPROVAL_REQUIRED_LABEL,
  invite: INVITE_ONLY_LABEL,
};

/**
 * The event's header: status (and whether it is invite only or needs approval), title, host,
 * start and end in its time zone (when it did, once it has; when it is scheduled to, until then),
 * description.
 */
export function summarySection(event: EventView, host: string, clock: EventClock): Markup {
  const accessLabel = ACCESS_LABELS[event.access];
  const access = accessLabel
    ? html`<span class=${`badge access-${event.access}`}>${accessLabel}</span>`
    : null;
  return html`<header id="event-summary" class="event-summary">
    <p class="status"><span class=${`badge status-${event.status}`}>${STATUS_LABELS[event.status]}</span> ${access}</p>
    <h1>${event.title}</h1>
    <dl class="facts">
      <div><dt>Host</dt><dd>${host}</dd></div>
      ${fact(startOf(event), clock)}
      ${fact(endOf(event), clock)}
      <div><dt>Time zone</dt><dd>${clock.zone}</dd></div>
    </dl>
    ${event.description ? html`<p class="description">${event.description}</p>` : null}
  </header>`;
}

function fact(moment: EventMoment, clock: EventClock): Markup {
  return html`<div><dt>${moment.label}</dt><dd>${momentTime(moment, clock)}</dd></div>`;
}

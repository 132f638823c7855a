import { agendaSection } from './agenda-section.js';
import { agentName, roleLabels } from './agent-labels.js';
import { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';
import { pageDocument } from './page-layout.js';
import type { WatchConfig } from './page-text.js';
import { pollsSection } from './polls-section.js';
import { questionsSection } from './questions-section.js';
import { recordingSection } from './recording-section.js';
import { seatsSection } from './seats-section.js';
import { stageSection } from './stage-section.js';
import { summarySection } from './summary-section.js';
import type { WatchState } from './watch-state.js';

/** What the footer says until the script takes over, and for good without JavaScript. */
export const STATIC_STATUS_TEXT =
  'This page shows the event as it was when it loaded: reload it to see what happened since.';

/**
 * `GET /events/{id}/watch`: everything about the event a person can see, complete without
 * JavaScript; watch.js then follows the live stream and keeps it current in place.
 */
export function watchPage(state: WatchState): Markup {
  const { event } = state;
  const clock = new EventClock(event.timezone);
  const labels = roleLabels(event, state.handles);
  const config: WatchConfig = {
    eventId: event.id,
    status: event.status,
    timezone: clock.zone,
    lastEventId: state.position === undefined ? null : String(state.position),
    labels,
  };
  return pageDocument({
    title: `${event.title} · Townhall`,
    live: true,
    main: html`<main id="main" class="watch" data-watch=${JSON.stringify(config)}>
      ${summarySection(event, agentName(event.hostId, state.handles), clock)}
      ${state.recording === undefined ? null : recordingSection(event.id, state.recording, clock)}
      ${stageSection(event.id, state.stage, labels, clock)}
      ${questionsSection(state.questions)}
      ${pollsSection(state.polls, clock)}
      ${agendaSection(event, clock)}
      ${seatsSection(event)}
    </main>`,
    footer: html`<div>
      <p id="live-status" role="status">${STATIC_STATUS_TEXT}</p>
      <p><a href=${`/events/${encodeURIComponent(event.id)}`}>This event as JSON</a></p>
    </div>`,
  });
}

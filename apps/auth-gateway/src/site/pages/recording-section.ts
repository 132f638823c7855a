import type { RecordingView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { html, safeHref, type Markup } from './markup.js';

export const RECORDING_UNPUBLISHED_TEXT = 'Recording not yet published.';

/** After the end: the published recording (its summary and media), or that there is none yet. */
export function recordingSection(
  eventId: string,
  recording: RecordingView | 'unpublished',
  clock: EventClock,
): Markup {
  const published = recording !== 'unpublished' && recording.published ? recording : undefined;
  const media = safeHref(published?.mediaUrl);
  return html`<section id="recording" aria-labelledby="recording-heading">
    <h2 id="recording-heading">Recording</h2>
    ${
      published
        ? html`<div class="recording">
          ${
            published.publishedAt
              ? html`<p>Published <time datetime=${published.publishedAt}>${clock.dateTime(published.publishedAt)}</time>.</p>`
              : null
          }
          ${published.summary ? html`<p class="summary">${published.summary}</p>` : null}
          ${
            media
              ? html`<p><a href=${media} rel="noopener noreferrer nofollow">Watch or listen to the recording</a></p>`
              : null
          }
          <p><a href=${`/events/${encodeURIComponent(eventId)}/recording`}>The record as JSON, a page at a time</a></p>
        </div>`
        : html`<p class="empty">${RECORDING_UNPUBLISHED_TEXT}</p>`
    }
  </section>`;
}

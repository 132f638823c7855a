import type { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';
import { authorLabel, HIDDEN_MESSAGE_TEXT, STAGE_LIMIT, type StageMessageOnPage } from './page-text.js';
import type { WatchState } from './watch-state.js';

/**
 * The stage, in order. The list is a polite live region: a screen reader reads out what the
 * browser script adds, without moving the reader's place.
 */
export function stageSection(
  eventId: string,
  stage: WatchState['stage'],
  labels: Readonly<Record<string, string>>,
  clock: EventClock,
): Markup {
  return html`<section id="stage" aria-labelledby="stage-heading">
    <h2 id="stage-heading">Stage</h2>
    <ol id="stage-messages" class="stage" aria-live="polite" aria-relevant="additions text">
      ${
        stage.messages.length === 0
          ? html`<li class="empty">Nothing on stage yet.</li>`
          : stage.messages.map((message) => stageMessage(message, labels, clock))
      }
    </ol>
    ${
      stage.more
        ? html`<p class="note">
          This page shows the first ${STAGE_LIMIT} messages;${' '}
          <a href=${`/events/${encodeURIComponent(eventId)}/stage`}>read the rest</a>.
        </p>`
        : null
    }
  </section>`;
}

/** One message; the browser script builds the same (site/browser/watch/elements.ts). */
export function stageMessage(
  message: StageMessageOnPage,
  labels: Readonly<Record<string, string>>,
  clock: EventClock,
): Markup {
  const hidden = message.hidden === true || message.body === null;
  const classes = ['message', message.kind === 'question' ? 'from-question' : '', hidden ? 'hidden' : '']
    .filter(Boolean)
    .join(' ');
  return html`<li id=${`m-${message.id}`} class=${classes} data-sequence=${message.sequence}>
    <p class="meta">
      <span class="author">${authorLabel(labels, message.authorId)}</span>${' '}
      <time datetime=${message.createdAt}>${clock.time(message.createdAt)}</time>
      ${message.kind === 'question' ? html`<span class="tag"> · question from the audience</span>` : null}
    </p>
    ${
      hidden
        ? html`<p class="body removed">${HIDDEN_MESSAGE_TEXT}</p>`
        : html`<p class="body">${message.body}</p>`
    }
  </li>`;
}

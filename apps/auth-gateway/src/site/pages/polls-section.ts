import type { PollOptionView, PollView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';
import { pollFacts, RESULTS_HIDDEN_TEXT, votesText } from './page-text.js';
import type { WatchState } from './watch-state.js';

/** The polls in opening order, with their results where the poll shows them. */
export function pollsSection(polls: WatchState['polls'], clock: EventClock): Markup {
  return html`<section id="polls" aria-labelledby="polls-heading">
    <h2 id="polls-heading">Polls</h2>
    <ol id="poll-list" class="polls">
      ${
        polls.items.length === 0
          ? html`<li class="empty">No polls yet.</li>`
          : polls.items.map((poll) => pollItem(poll, clock))
      }
    </ol>
  </section>`;
}

/** One poll; the browser script builds the same (site/browser/watch/elements.ts). */
export function pollItem(poll: PollView, clock: EventClock): Markup {
  const visible = poll.ballots !== null;
  return html`<li id=${`p-${poll.id}`} class=${`poll status-${poll.status}`}>
    <h3>${poll.question}</h3>
    <p class="meta">${pollFacts(poll, clock)}</p>
    <ul class="options">
      ${poll.options.map((option) => pollOption(option, poll.ballots))}
    </ul>
    ${visible ? null : html`<p class="note">${RESULTS_HIDDEN_TEXT}</p>`}
  </li>`;
}

function pollOption(option: PollOptionView, ballots: number | null): Markup {
  if (option.votes === null || ballots === null)
    return html`<li><span class="label">${option.label}</span></li>`;
  return html`<li>
    <span class="label">${option.label}</span>${' '}
    <span class="votes">${votesText(option.votes, ballots)}</span>
    <meter min="0" max=${Math.max(ballots, 1)} value=${option.votes} aria-hidden="true"></meter>
  </li>`;
}

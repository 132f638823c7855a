import type { PollOptionView, PollView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';
import { html, type Markup } from './markup.js';
import type { WatchState } from './watch-state.js';

/** What a poll that shows its results only after closing says while it is open. */
export const RESULTS_HIDDEN_TEXT = 'Results are shown when the poll closes.';

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

/** One poll; watch-script.ts `pollItem` builds the same. */
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

/** `Open · 3 ballots · multiple choice · closes 19:30`, as one line of text. */
export function pollFacts(poll: PollView, clock: EventClock): string {
  const facts = [poll.status === 'open' ? 'Open' : 'Closed'];
  if (poll.ballots !== null) facts.push(poll.ballots === 1 ? '1 ballot' : `${poll.ballots} ballots`);
  if (poll.multiple) facts.push('multiple choice');
  if (poll.status === 'open' && poll.closesAt) facts.push(`closes ${clock.time(poll.closesAt)}`);
  return facts.join(' · ');
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

/** `2 votes (67%)`: the share of ballots, so multiple-choice shares may add up past 100%. */
export function votesText(votes: number, ballots: number): string {
  const share = ballots === 0 ? 0 : Math.round((votes / ballots) * 100);
  return `${votes === 1 ? '1 vote' : `${votes} votes`} (${share}%)`;
}

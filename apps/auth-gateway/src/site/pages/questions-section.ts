import type { QuestionView } from '@townhall/contracts';
import { html, type Markup } from './markup.js';
import { LIST_LIMIT, QUESTION_STATE_LABELS, upvotesText } from './page-text.js';
import type { WatchState } from './watch-state.js';

/** The questions by upvotes, then age: what the service's `sort=top` answers. */
export function questionsSection(questions: WatchState['questions']): Markup {
  return html`<section id="questions" aria-labelledby="questions-heading">
    <h2 id="questions-heading">Questions</h2>
    <ol id="question-list" class="questions">
      ${
        questions.items.length === 0
          ? html`<li class="empty">No questions yet.</li>`
          : questions.items.map(questionItem)
      }
    </ol>
    ${questions.more ? html`<p class="note">The ${LIST_LIMIT} questions with the most upvotes.</p>` : null}
  </section>`;
}

/** One question; the browser script builds the same (site/browser/watch/elements.ts). */
export function questionItem(question: QuestionView): Markup {
  return html`<li
    id=${`q-${question.id}`}
    class=${`question state-${question.state}`}
    data-upvotes=${question.upvotes}
    data-created=${question.createdAt}
    data-author=${question.authorId}
  >
    <p class="body">${question.body}</p>
    <p class="meta">
      <span class="upvotes">${upvotesText(question.upvotes)}</span>${' '}
      <span class="state">${QUESTION_STATE_LABELS[question.state] ?? question.state}</span>
    </p>
  </li>`;
}

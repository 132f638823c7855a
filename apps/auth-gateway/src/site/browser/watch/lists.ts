import type { PollView, QuestionView } from '@townhall/contracts';
import type { EventClock } from '../../pages/event-clock.js';
import { isShownQuestionState, type StageMessageOnPage } from '../../pages/page-text.js';
import { dropEmpty, emptyItem, isHidden, pollItem, questionItem, stageMessageItem } from './elements.js';

const NO_MESSAGES = 'Nothing on stage yet.';
const NO_QUESTIONS = 'No questions yet.';
const NO_POLLS = 'No polls yet.';

/**
 * The page's three lists (the stage, the questions, the polls), changed in place: every live
 * message carries the whole resource after its change (a question with its upvotes, a poll with
 * its counts), put by id, in stream order, so the last one wins and one applied twice is harmless.
 */
export class PageLists {
  /** How the stage names its authors; the page's sections, read again, may bring newer ones. */
  labels: Readonly<Record<string, string>>;
  /** Agents blocked in the event: their questions leave the public view. */
  private readonly blocked = new Set<string>();

  constructor(
    labels: Readonly<Record<string, string>>,
    private readonly clock: EventClock,
  ) {
    this.labels = labels;
  }

  putMessage(message: StageMessageOnPage): void {
    const list = document.getElementById('stage-messages');
    if (!list || typeof message?.id !== 'string') return;
    const item = stageMessageItem(message, this.labels, this.clock);
    const existing = document.getElementById(`m-${message.id}`);
    if (existing) {
      // Hiding is final: a replayed copy from before it must not bring the body back.
      if (!(existing.classList.contains('hidden') && !isHidden(message))) existing.replaceWith(item);
      return;
    }
    dropEmpty(list);
    // In sequence order: after the last one before it.
    const items = list.querySelectorAll<HTMLElement>(':scope > li');
    for (let i = items.length - 1; i >= 0; i--) {
      const other = items[i]!;
      if (Number(other.dataset['sequence']) < message.sequence) {
        other.after(item);
        return;
      }
    }
    list.prepend(item);
  }

  putQuestion(question: QuestionView): void {
    const list = document.getElementById('question-list');
    if (!list || typeof question?.id !== 'string') return;
    // Pending and withdrawn questions never show; a blocked agent's leave public view.
    if (!isShownQuestionState(question.state) || this.blocked.has(question.authorId)) {
      this.removeQuestion(question.id);
      return;
    }
    const existing = document.getElementById(`q-${question.id}`);
    if (existing) existing.replaceWith(questionItem(question));
    else {
      dropEmpty(list);
      list.append(questionItem(question));
    }
    sortQuestions(list);
  }

  removeQuestion(id: unknown): void {
    const existing = typeof id === 'string' ? document.getElementById(`q-${id}`) : null;
    if (!existing) return;
    existing.remove();
    const list = document.getElementById('question-list');
    if (list) noQuestionsLeft(list);
  }

  putPoll(poll: PollView): void {
    const list = document.getElementById('poll-list');
    if (!list || typeof poll?.id !== 'string' || !Array.isArray(poll.options)) return;
    const existing = document.getElementById(`p-${poll.id}`);
    if (existing) existing.replaceWith(pollItem(poll, this.clock));
    else {
      dropEmpty(list);
      list.append(pollItem(poll, this.clock));
    }
  }

  /** A block takes the agent's questions out at once; an unblock waits for the lists read again. */
  block(agentId: string, blocked: boolean): void {
    if (!blocked) {
      this.blocked.delete(agentId);
      return;
    }
    this.blocked.add(agentId);
    const list = document.getElementById('question-list');
    if (!list) return;
    for (const item of list.querySelectorAll<HTMLElement>(':scope > li.question'))
      if (item.dataset['author'] === agentId) item.remove();
    noQuestionsLeft(list);
  }

  /** The three lists as read again (as JSON): each replaced whole. */
  replace(stage: StageMessageOnPage[], questions: QuestionView[], polls: PollView[]): void {
    rebuild(
      'stage-messages',
      stage,
      (message) => stageMessageItem(message, this.labels, this.clock),
      NO_MESSAGES,
    );
    rebuild(
      'question-list',
      questions.filter(
        (question) => isShownQuestionState(question.state) && !this.blocked.has(question.authorId),
      ),
      questionItem,
      NO_QUESTIONS,
    );
    rebuild('poll-list', polls, (poll) => pollItem(poll, this.clock), NO_POLLS);
  }
}

function rebuild<T>(id: string, items: readonly T[], build: (item: T) => HTMLElement, none: string): void {
  document.getElementById(id)?.replaceChildren(...(items.length > 0 ? items.map(build) : [emptyItem(none)]));
}

function noQuestionsLeft(list: Element): void {
  if (list.querySelector(':scope > li.question')) return;
  dropEmpty(list);
  list.append(emptyItem(NO_QUESTIONS));
}

/** By upvotes, then age, as the service sorts them (sort=top); moved only when the order changed. */
function sortQuestions(list: Element): void {
  const items = [...list.querySelectorAll<HTMLElement>(':scope > li.question')];
  const sorted = [...items].sort((a, b) => {
    const byVotes = Number(b.dataset['upvotes']) - Number(a.dataset['upvotes']);
    if (byVotes !== 0) return byVotes;
    const [older, newer] = [a.dataset['created'] ?? '', b.dataset['created'] ?? ''];
    return older < newer ? -1 : older > newer ? 1 : 0;
  });
  if (sorted.some((item, index) => item !== items[index])) list.append(...sorted);
}

import type { PollOptionView, PollView, QuestionView } from '@townhall/contracts';
import type { EventClock } from '../../pages/event-clock.js';
import {
  authorLabel,
  HIDDEN_MESSAGE_TEXT,
  pollFacts,
  QUESTION_STATE_LABELS,
  RESULTS_HIDDEN_TEXT,
  upvotesText,
  votesText,
  type StageMessageOnPage,
} from '../../pages/page-text.js';

/*
 * The parts of the watch page the script adds or replaces, built as the server's sections build
 * them (site/pages/*-section.ts), with the same words (page-text.ts). Text always goes in as text
 * (`append` of a string): what an agent wrote never becomes markup here either.
 */

type Child = Node | string | null | undefined | false;

/** An element with its attributes (null, undefined and false leave one out) and children. */
export function el(
  tag: string,
  attributes: Record<string, string | number | boolean | null | undefined> = {},
  children: readonly Child[] = [],
): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, String(value));
  for (const child of children)
    if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

export function emptyItem(text: string): HTMLElement {
  return el('li', { class: 'empty' }, [text]);
}

/** Takes out a list's "nothing yet" line. */
export function dropEmpty(list: Element): void {
  for (const item of list.querySelectorAll(':scope > li.empty')) item.remove();
}

export function isHidden(message: StageMessageOnPage): boolean {
  return message.hidden === true || message.body === null;
}

/** stage-section.ts `stageMessage`. */
export function stageMessageItem(
  message: StageMessageOnPage,
  labels: Readonly<Record<string, string>>,
  clock: EventClock,
): HTMLElement {
  const hidden = isHidden(message);
  const classes = ['message', message.kind === 'question' ? 'from-question' : '', hidden ? 'hidden' : '']
    .filter(Boolean)
    .join(' ');
  return el('li', { id: `m-${message.id}`, class: classes, 'data-sequence': message.sequence }, [
    el('p', { class: 'meta' }, [
      el('span', { class: 'author' }, [authorLabel(labels, message.authorId)]),
      ' ',
      el('time', { datetime: message.createdAt }, [clock.time(message.createdAt)]),
      message.kind === 'question' && el('span', { class: 'tag' }, [' · question from the audience']),
    ]),
    hidden
      ? el('p', { class: 'body removed' }, [HIDDEN_MESSAGE_TEXT])
      : el('p', { class: 'body' }, [message.body]),
  ]);
}

/** questions-section.ts `questionItem`. */
export function questionItem(question: QuestionView): HTMLElement {
  return el(
    'li',
    {
      id: `q-${question.id}`,
      class: `question state-${question.state}`,
      'data-upvotes': question.upvotes,
      'data-created': question.createdAt,
      'data-author': question.authorId,
    },
    [
      el('p', { class: 'body' }, [question.body]),
      el('p', { class: 'meta' }, [
        el('span', { class: 'upvotes' }, [upvotesText(question.upvotes)]),
        ' ',
        el('span', { class: 'state' }, [QUESTION_STATE_LABELS[question.state] ?? question.state]),
      ]),
    ],
  );
}

/** polls-section.ts `pollItem`. */
export function pollItem(poll: PollView, clock: EventClock): HTMLElement {
  return el('li', { id: `p-${poll.id}`, class: `poll status-${poll.status}` }, [
    el('h3', {}, [poll.question]),
    el('p', { class: 'meta' }, [pollFacts(poll, clock)]),
    el(
      'ul',
      { class: 'options' },
      poll.options.map((option) => pollOption(option, poll.ballots)),
    ),
    poll.ballots === null && el('p', { class: 'note' }, [RESULTS_HIDDEN_TEXT]),
  ]);
}

function pollOption(option: PollOptionView, ballots: number | null): HTMLElement {
  const label = el('span', { class: 'label' }, [option.label]);
  if (option.votes === null || ballots === null) return el('li', {}, [label]);
  return el('li', {}, [
    label,
    ' ',
    el('span', { class: 'votes' }, [votesText(option.votes, ballots)]),
    el('meter', { min: 0, max: Math.max(ballots, 1), value: option.votes, 'aria-hidden': 'true' }),
  ]);
}

import {
  DomainError,
  EngagementTopics,
  type QuestionAction,
  type QuestionState,
  type QuestionView,
} from '@townhall/contracts';
import type { Announcement } from '@townhall/platform/service';

// A question's states and what moves it between them, in one place: the moderators' steps, the
// states attendees take part in, and how each change is announced. Withdrawing (its author's
// step, from pending or open) is in withdraw-question.ts.

/** A moderator's step: the states it moves a question from, the state it moves it to, its domain event. */
interface ModerationStep {
  from: QuestionState[];
  to: QuestionState;
  topic: string;
}

/** pending -> open; open -> promoted -> answered; pending | open | promoted -> dismissed. */
export const TRANSITIONS: Record<QuestionAction, ModerationStep> = {
  approve: { from: ['pending'], to: 'open', topic: EngagementTopics.questionApproved },
  promote: { from: ['open'], to: 'promoted', topic: EngagementTopics.questionPromoted },
  answer: { from: ['promoted'], to: 'answered', topic: EngagementTopics.questionAnswered },
  dismiss: {
    from: ['pending', 'open', 'promoted'],
    to: 'dismissed',
    topic: EngagementTopics.questionDismissed,
  },
};

/** The states a question is upvoted and reported in (and, reported, held): public and not settled. */
export const VOTABLE: ReadonlySet<QuestionState> = new Set(['open', 'promoted']);

/** 409: the question's state does not allow `doing` (of two racing moderators, the loser's answer). */
export function invalidTransition(doing: string, state: QuestionState): DomainError {
  return new DomainError('question.invalid_transition', `Cannot ${doing} a question that is ${state}`);
}

/**
 * A domain event about a question. `seen`: whether the public could see the question before or
 * after the change; if it could not, the event is for moderators only (never on the live stream).
 */
export function questionEvent(type: string, question: QuestionView, seen: boolean): Announcement {
  return { type, subject: question.eventId, data: question, ...(seen ? {} : { visibility: 'staff' }) };
}

import { isPublicQuestionState, type QuestionState, type QuestionView } from '@townhall/contracts';

/** A row of engagement.questions (see the migrations). */
export interface QuestionRow {
  id: string;
  seq: string;
  event_id: string;
  author_id: string;
  body: string;
  upvotes: number;
  state: QuestionState;
  reports: number;
  withheld: boolean;
  created_at: Date;
}

export const QUESTION_COLUMNS =
  'id, seq, event_id, author_id, body, upvotes, state, reports, withheld, created_at';

/** Whether the public sees the question: a public state, and not dismissed while pending. */
export function isPublic(row: Pick<QuestionRow, 'state' | 'withheld'>): boolean {
  return isPublicQuestionState(row.state) && !row.withheld;
}

/** A question as one reader asks for it: with whether its author is blocked in the event now. */
export interface FoundQuestionRow extends QuestionRow {
  author_blocked: boolean;
}

/**
 * Whether the public sees the question now: public (isPublic), and not the open question of an
 * agent a moderator has blocked in the event (it left public view with the block).
 */
export function isPublicNow(row: FoundQuestionRow): boolean {
  return isPublic(row) && !(row.author_blocked && row.state === 'open');
}

/** The question as anyone may see it; `forStaff` adds its report count (moderators and the host). */
export function toQuestion(row: QuestionRow, forStaff = false): QuestionView {
  return {
    id: row.id,
    eventId: row.event_id,
    authorId: row.author_id,
    body: row.body,
    upvotes: row.upvotes,
    state: row.state,
    ...(forStaff ? { reports: row.reports } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

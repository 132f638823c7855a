import type { QuestionState, QuestionView } from '@townhall/contracts';

/** A row of engagement.questions (see the migrations). */
export interface QuestionRow {
  id: string;
  seq: string;
  event_id: string;
  author_id: string;
  body: string;
  upvotes: number;
  state: QuestionState;
  created_at: Date;
}

export const QUESTION_COLUMNS = 'id, seq, event_id, author_id, body, upvotes, state, created_at';

export function toQuestion(row: QuestionRow): QuestionView {
  return {
    id: row.id,
    eventId: row.event_id,
    authorId: row.author_id,
    body: row.body,
    upvotes: row.upvotes,
    state: row.state,
    createdAt: row.created_at.toISOString(),
  };
}

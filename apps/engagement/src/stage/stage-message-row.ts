import type { StageMessageView } from '@townhall/contracts';

/** A row of engagement.stage_messages (see the migrations). */
export interface StageMessageRow {
  id: string;
  event_id: string;
  sequence: number;
  author_id: string;
  body: string;
  kind: 'message' | 'question';
  question_id: string | null;
  created_at: Date;
  hidden_at: Date | null;
}

export const STAGE_MESSAGE_COLUMNS =
  'id, event_id, sequence, author_id, body, kind, question_id, created_at, hidden_at';

export function toStageMessage(row: StageMessageRow): StageMessageView {
  return {
    id: row.id,
    eventId: row.event_id,
    sequence: row.sequence,
    authorId: row.author_id,
    // A hidden message keeps its place; its body is gone from every public read.
    body: row.hidden_at ? null : row.body,
    hidden: row.hidden_at !== null,
    kind: row.kind,
    questionId: row.question_id,
    createdAt: row.created_at.toISOString(),
  };
}

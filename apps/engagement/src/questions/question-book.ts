import { Injectable } from '@nestjs/common';
import { DomainError, PUBLIC_QUESTION_STATES, type QuestionView, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { isStaff, type Participant } from '../access/participants.js';
import {
  isPublicNow,
  QUESTION_COLUMNS,
  toQuestion,
  type FoundQuestionRow,
  type QuestionRow,
} from './question-row.js';

/** 404 question.not_found; also what a question others cannot see answers them (it does not exist for them). */
export function questionNotFound(questionId: string): DomainError {
  return new DomainError('question.not_found', `No question ${questionId} in this event`);
}

/**
 * Whether `reader` may know of the question: the public sees it while it is public (isPublicNow);
 * the event's staff and its author see it in every state. On every route, a question hidden from
 * the caller is 404 question.not_found (questionNotFound), never its text, author or state.
 */
export function visibleTo(row: FoundQuestionRow, reader: Participant): boolean {
  return isPublicNow(row) || isStaff(reader) || row.author_id === reader.agentId;
}

/** Reading questions: one as it is or locked for a change, and the recording's. */
@Injectable()
export class QuestionBook {
  constructor(private readonly dataSource: DataSource) {}

  /** The question as it is now (in `manager`'s transaction, if given). */
  find(
    eventId: string,
    questionId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<FoundQuestionRow> {
    return this.row(manager, eventId, questionId, false);
  }

  /** The question as it is now, if `reader` may know of it (visibleTo); 404 question.not_found if not. */
  async seenBy(eventId: string, questionId: string, reader: Participant): Promise<FoundQuestionRow> {
    const row = await this.find(eventId, questionId);
    if (!visibleTo(row, reader)) throw questionNotFound(questionId);
    return row;
  }

  /**
   * The question, locked for the rest of the caller's transaction (after the stage lock) as an
   * UPDATE of it would: FOR NO KEY UPDATE, which the key-share lock of an inserted upvote or
   * report does not wait for (FOR UPDATE would deadlock two reporters).
   */
  lock(manager: EntityManager, eventId: string, questionId: string): Promise<FoundQuestionRow> {
    return this.row(manager, eventId, questionId, true);
  }

  /**
   * Every question of the event the public could see at its end, in the order asked, for the
   * recording (which leaves out the open ones of agents blocked when it is read).
   */
  async all(manager: EntityManager, eventId: string): Promise<QuestionView[]> {
    const rows = await queryRows<QuestionRow>(
      manager,
      `SELECT ${QUESTION_COLUMNS} FROM engagement.questions
       WHERE event_id = $1 AND state = ANY($2::text[]) AND NOT withheld ORDER BY seq`,
      [eventId, PUBLIC_QUESTION_STATES],
    );
    return rows.map((row) => toQuestion(row));
  }

  private async row(
    manager: EntityManager,
    eventId: string,
    questionId: string,
    lock: boolean,
  ): Promise<FoundQuestionRow> {
    const [row] = isUuid(questionId)
      ? await queryRows<FoundQuestionRow>(
          manager,
          `SELECT ${QUESTION_COLUMNS}, engagement.is_blocked(event_id, author_id) AS author_blocked
           FROM engagement.questions WHERE id = $1 AND event_id = $2${lock ? ' FOR NO KEY UPDATE' : ''}`,
          [questionId, eventId],
        )
      : [];
    if (!row) throw questionNotFound(questionId);
    return row;
  }
}

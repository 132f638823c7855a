import { Injectable } from '@nestjs/common';
import {
  DomainError,
  type MessageMeta,
  type Page,
  PUBLIC_QUESTION_STATES,
  isPublicQuestionState,
  type QuestionState,
  type QuestionView,
  isUuid,
} from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { isStaff, Participants } from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';

export interface QuestionListQuery {
  eventId: string;
  sort: 'top' | 'new';
  state?: QuestionState | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * An event's questions by upvotes then age (`top`), or newest first (`new`), optionally in one
 * state. Anyone reads the public states, except the open and pending questions of a blocked
 * agent. `pending` and `withdrawn` need a signed read: moderators and the host see them all, an
 * author their own. Moderators and the host also see each question's reports.
 */
@Injectable()
export class ListQuestions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
  ) {}

  async list(query: QuestionListQuery, meta: MessageMeta): Promise<Page<QuestionView>> {
    const reader = await this.reader(query, meta);
    const params: unknown[] = [query.eventId];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = ['event_id = $1'];
    if (query.state) where.push(`state = ${param(query.state)}`);
    else where.push(`state = ANY(${param(PUBLIC_QUESTION_STATES)}::text[])`);
    if (reader === 'author') where.push(`author_id = ${param(meta.caller)}`);
    if (reader === 'public') where.push('NOT withheld');
    if (reader === 'public')
      where.push(
        `NOT (state IN ('pending', 'open') AND engagement.is_blocked(questions.event_id, questions.author_id))`,
      );
    if (query.cursor) {
      if (query.sort === 'top') {
        const { u, s } = decodeCursor(query.cursor, ['u', 's']);
        where.push(`(upvotes < ${param(u)} OR (upvotes = $${params.length} AND seq > ${param(s)}))`);
      } else {
        const { s } = decodeCursor(query.cursor, ['s']);
        where.push(`seq < ${param(s)}`);
      }
    }
    const order = query.sort === 'top' ? 'upvotes DESC, seq' : 'seq DESC';
    const rows = isUuid(query.eventId)
      ? await queryRows<QuestionRow>(
          this.dataSource,
          `SELECT ${QUESTION_COLUMNS} FROM engagement.questions WHERE ${where.join(' AND ')}
           ORDER BY ${order} LIMIT ${param(query.limit + 1)}`,
          params,
        )
      : [];
    if (rows.length === 0 && (!query.cursor || !isUuid(query.eventId)))
      await this.participants.event(query.eventId, meta); // 404 event.not_found, or an empty list
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => toQuestion(row, reader === 'staff')),
      nextCursor:
        rows.length > query.limit && last
          ? encodeCursor(
              query.sort === 'top' ? { u: last.upvotes, s: Number(last.seq) } : { s: Number(last.seq) },
            )
          : null,
    };
  }

  /**
   * Who reads: `staff` (a signed host or moderator: reports shown, every state), `author` (a
   * signed agent asking for its own pending or withdrawn questions), or `public`. An unknown event
   * is 404 before any rule.
   */
  private async reader(query: QuestionListQuery, meta: MessageMeta): Promise<'staff' | 'author' | 'public'> {
    const caller = meta.caller;
    const restricted = query.state !== undefined && !isPublicQuestionState(query.state);
    if (caller === null) {
      if (restricted)
        throw new DomainError(
          'role.forbidden',
          `Only moderators, the host and their authors see ${query.state} questions; sign the request`,
        );
      return 'public';
    }
    const participant = await this.participants.authorize(query.eventId, { ...meta, caller }, (seen) => seen);
    if (isStaff(participant)) return 'staff';
    return restricted ? 'author' : 'public';
  }
}

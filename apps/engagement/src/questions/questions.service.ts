import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type EventStatus,
  type MessageMeta,
  type Page,
  type QuestionAction,
  type QuestionState,
  type QuestionView,
  type SignedMeta,
  isUuid,
} from '@townhall/contracts';
import { Changes, preparedStatement, queryRows, type Announcement } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { Participants, requireAttendee, requireRole } from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { holdOpen } from '../stage/stage-lock.js';
import { StageService } from '../stage/stage.service.js';
import { SETTINGS, type EngagementSettings } from '../tokens.js';
import { QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';

/** Questions are taken (and voted on, and moderated) while the event is scheduled (AMA pre-questions) or live. */
const OPEN_STATUSES: ReadonlySet<EventStatus> = new Set(['scheduled', 'live']);

/** open -> promoted -> answered; open | promoted -> dismissed. */
const TRANSITIONS: Record<QuestionAction, { from: QuestionState[]; to: QuestionState; topic: string }> = {
  promote: { from: ['open'], to: 'promoted', topic: EngagementTopics.questionPromoted },
  answer: { from: ['promoted'], to: 'answered', topic: EngagementTopics.questionAnswered },
  dismiss: { from: ['open', 'promoted'], to: 'dismissed', topic: EngagementTopics.questionDismissed },
};

export interface QuestionListQuery {
  eventId: string;
  sort: 'top' | 'new';
  state?: QuestionState | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Q&A (docs/product.md "Live stage, Q&A, polls"). */
@Injectable()
export class QuestionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: Changes,
    private readonly participants: Participants,
    private readonly stage: StageService,
    @Inject(SETTINGS) private readonly settings: EngagementSettings,
  ) {
    this.submitQuestion = preparedStatement(
      dataSource,
      'engagement.submit_question',
      'SELECT engagement.submit_question($1, $2, $3, $4, $5, $6, $7::jsonb) AS outcome',
    );
  }

  private readonly submitQuestion: (values: unknown[]) => Promise<Array<{ outcome: string }>>;

  /**
   * Attendees ask while the event is scheduled or live, a few times a minute at most: one call
   * to engagement.submit_question (the stage lock, the rate, the row and its domain event).
   */
  async submit(meta: SignedMeta, eventId: string, body: string): Promise<QuestionView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireAttendee(participant, 'ask questions');
      requireOpen(participant.status);
    });
    const question: QuestionView = {
      id: randomUUID(),
      eventId,
      authorId: meta.caller,
      body,
      upvotes: 0,
      state: 'open',
      createdAt: new Date().toISOString(),
    };
    const events = this.changes.prepare([
      { type: EngagementTopics.questionSubmitted, subject: eventId, data: question },
    ]);
    const [result] = await this.submitQuestion([
      question.id,
      eventId,
      meta.caller,
      body,
      question.createdAt,
      this.settings.questionsPerMinute,
      JSON.stringify(events),
    ]);
    if (result?.outcome === 'ended') throw new DomainError('question.closed', 'The event has ended');
    if (result?.outcome === 'rate_limited')
      throw new DomainError(
        'rate.limited',
        `At most ${this.settings.questionsPerMinute} questions per minute per event; wait a little`,
      );
    this.changes.published();
    return question;
  }

  /**
   * One upvote per agent per question, never counted twice: the counter moves only when the
   * (question, agent) row was really inserted or deleted, in the same transaction. Repeating
   * either is a no-op that answers the question as it is.
   */
  async upvote(meta: SignedMeta, eventId: string, questionId: string, up: boolean): Promise<QuestionView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireAttendee(participant, 'upvote questions');
      requireOpen(participant.status);
    });
    const current = await this.find(this.dataSource.manager, eventId, questionId);
    if (current.author_id === meta.caller)
      throw new DomainError('question.own_upvote', 'You cannot upvote your own question');
    return this.changes.run(async (manager) => {
      if (!(await holdOpen(manager, eventId)))
        throw new DomainError('question.closed', 'The event has ended');
      const changed = up
        ? await queryRows(
            manager,
            `INSERT INTO engagement.question_upvotes (question_id, agent_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING RETURNING agent_id`,
            [questionId, meta.caller],
          )
        : await queryRows(
            manager,
            'DELETE FROM engagement.question_upvotes WHERE question_id = $1 AND agent_id = $2 RETURNING agent_id',
            [questionId, meta.caller],
          );
      if (changed.length === 0) return toQuestion(await this.find(manager, eventId, questionId));
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET upvotes = upvotes + $2, updated_at = now()
         WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId, up ? 1 : -1],
      );
      const question = toQuestion(row!);
      await this.changes.announce(manager, [
        { type: EngagementTopics.questionUpvoted, subject: eventId, data: question },
      ]);
      return question;
    });
  }

  /**
   * Moderators and the host promote (onto the stage, while live), answer or dismiss. Each step
   * is a conditional UPDATE from the states it allows: of two racing moderators exactly one
   * wins and the other gets 409 question.invalid_transition.
   */
  async moderate(
    meta: SignedMeta,
    eventId: string,
    questionId: string,
    action: QuestionAction,
  ): Promise<QuestionView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator'], `${action} questions`);
      if (action === 'promote' && participant.status !== 'live')
        throw new DomainError(
          'stage.closed',
          `Questions go on stage while the event is live; it is ${participant.status}`,
        );
      requireOpen(participant.status);
    });
    const step = TRANSITIONS[action];
    return this.changes.run(async (manager) => {
      // The stage row first (taken by append(), or shared here), then the question: the lock order of every writer.
      const announcements: Announcement[] = [];
      if (action === 'promote') {
        const current = await this.find(manager, eventId, questionId);
        const message = await this.stage.append(manager, {
          eventId,
          authorId: meta.caller,
          body: current.body,
          kind: 'question',
          questionId,
        });
        announcements.push({ type: EngagementTopics.stagePosted, subject: eventId, data: message });
      } else if (!(await holdOpen(manager, eventId))) {
        throw new DomainError('question.closed', 'The event has ended');
      }
      const [row] = isUuid(questionId)
        ? await queryRows<QuestionRow>(
            manager,
            `UPDATE engagement.questions SET state = $3, updated_at = now()
             WHERE id = $1 AND event_id = $2 AND state = ANY($4::text[]) RETURNING ${QUESTION_COLUMNS}`,
            [questionId, eventId, step.to, step.from],
          )
        : [];
      if (!row) {
        const current = await this.find(manager, eventId, questionId);
        throw new DomainError(
          'question.invalid_transition',
          `Cannot ${action} a question that is ${current.state}`,
        );
      }
      const question = toQuestion(row);
      // The question's new state is announced before the stage message that shows it.
      announcements.unshift({ type: step.topic, subject: eventId, data: question });
      await this.changes.announce(manager, announcements);
      return question;
    });
  }

  /** Public: by upvotes then age (`top`), or newest first (`new`), optionally in one state. */
  async list(query: QuestionListQuery, meta: MessageMeta): Promise<Page<QuestionView>> {
    const params: unknown[] = [query.eventId];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = ['event_id = $1'];
    if (query.state) where.push(`state = ${param(query.state)}`);
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
      items: page.map(toQuestion),
      nextCursor:
        rows.length > query.limit && last
          ? encodeCursor(
              query.sort === 'top' ? { u: last.upvotes, s: Number(last.seq) } : { s: Number(last.seq) },
            )
          : null,
    };
  }

  /** Every question of the event in the order asked, for the recording. */
  async all(manager: EntityManager, eventId: string): Promise<QuestionView[]> {
    const rows = await queryRows<QuestionRow>(
      manager,
      `SELECT ${QUESTION_COLUMNS} FROM engagement.questions WHERE event_id = $1 ORDER BY seq`,
      [eventId],
    );
    return rows.map(toQuestion);
  }

  private async find(manager: EntityManager, eventId: string, questionId: string): Promise<QuestionRow> {
    const [row] = isUuid(questionId)
      ? await queryRows<QuestionRow>(
          manager,
          `SELECT ${QUESTION_COLUMNS} FROM engagement.questions WHERE id = $1 AND event_id = $2`,
          [questionId, eventId],
        )
      : [];
    if (!row) throw new DomainError('question.not_found', `No question ${questionId} in this event`);
    return row;
  }
}

/** Refuses (409) a question, upvote or moderation once the event is neither scheduled nor live. */
function requireOpen(status: EventStatus): void {
  if (!OPEN_STATUSES.has(status)) throw new DomainError('question.closed', `The event is ${status}`);
}

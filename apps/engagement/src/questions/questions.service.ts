import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type EventStatus,
  type MessageMeta,
  type Page,
  PUBLIC_QUESTION_STATES,
  isPublicQuestionState,
  type QuestionAction,
  type QuestionReported,
  type QuestionState,
  type QuestionView,
  type SignedMeta,
  isUuid,
} from '@townhall/contracts';
import { OutboxWriter, queryRows, type Announcement } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import {
  blockedProblem,
  Participants,
  requireAttendee,
  requireNotBlocked,
  requireRole,
  type Participant,
} from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import {
  holdOpen,
  submitQuestionCall,
  type SubmitQuestionArgs,
  type SubmitQuestionOutcome,
} from '../db/functions.js';
import { StageService } from '../stage/stage.service.js';
import { SETTINGS, type EngagementSettings } from '../tokens.js';
import { isPublic, QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';

/** Questions are taken (and voted on, and moderated) while the event is scheduled (AMA pre-questions) or live. */
const OPEN_STATUSES: ReadonlySet<EventStatus> = new Set(['scheduled', 'live']);

/** pending -> open; open -> promoted -> answered; pending | open | promoted -> dismissed. */
const TRANSITIONS: Record<QuestionAction, { from: QuestionState[]; to: QuestionState; topic: string }> = {
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
const VOTABLE: ReadonlySet<QuestionState> = new Set(['open', 'promoted']);

/**
 * A domain event about a question. `seen`: whether the public could see the question before or
 * after the change; if it could not, the event is for moderators only (never on the live stream).
 */
function questionEvent(type: string, question: QuestionView, seen: boolean): Announcement {
  return { type, subject: question.eventId, data: question, ...(seen ? {} : { visibility: 'staff' }) };
}

/**
 * A question reports sent back to `pending`: the public saw it, so its reporters may still report
 * it (once each). Only public questions are ever reported, so a pending one with reports is one.
 */
function heldByReports(row: QuestionRow): boolean {
  return row.state === 'pending' && row.reports > 0;
}

function isStaff(participant: Participant): boolean {
  return participant.role === 'host' || participant.role === 'moderator';
}

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
    private readonly changes: OutboxWriter,
    private readonly participants: Participants,
    private readonly stage: StageService,
    @Inject(SETTINGS) private readonly settings: EngagementSettings,
  ) {
    this.submitQuestion = submitQuestionCall(dataSource, changes);
  }

  private readonly submitQuestion: (args: SubmitQuestionArgs) => Promise<SubmitQuestionOutcome>;

  /**
   * Attendees ask while the event is scheduled or live, a few times a minute at most: one call
   * to engagement.submit_question (the stage lock, the block, the rate, the row and its domain
   * event), retried as every statement is when Postgres picks it as a deadlock victim.
   */
  async submit(meta: SignedMeta, eventId: string, body: string): Promise<QuestionView> {
    const moderation = await this.participants.authorize(eventId, meta, (participant) => {
      requireNotBlocked(participant);
      requireAttendee(participant, 'ask questions');
      requireOpen(participant.status);
      return participant.moderation;
    });
    // Pre-moderation: held until a moderator approves it, seen by its author and the moderators.
    const state = moderation.questions === 'pre' ? 'pending' : 'open';
    const question: QuestionView = {
      id: randomUUID(),
      eventId,
      authorId: meta.caller,
      body,
      upvotes: 0,
      state,
      createdAt: new Date().toISOString(),
    };
    const events = this.changes.prepare([
      questionEvent(EngagementTopics.questionSubmitted, question, question.state === 'open'),
    ]);
    const submitted = await this.submitQuestion({
      id: question.id,
      eventId,
      authorId: meta.caller,
      body,
      at: question.createdAt,
      perMinute: this.settings.questionsPerMinute,
      state,
      events,
    });
    if (submitted.outcome === 'submitted') return question;
    switch (submitted.refusal) {
      case 'ended':
        throw new DomainError('question.closed', 'The event has ended');
      case 'blocked':
        throw blockedProblem();
      case 'rate_limited':
        throw new DomainError(
          'rate.limited',
          `At most ${this.settings.questionsPerMinute} questions per minute per event; wait a little`,
        );
    }
  }

  /**
   * One upvote per agent per question, never counted twice: the counter moves only when the
   * (question, agent) row was really inserted or deleted, in the same transaction. Repeating
   * either is a no-op that answers the question as it is.
   */
  async upvote(meta: SignedMeta, eventId: string, questionId: string, up: boolean): Promise<QuestionView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireNotBlocked(participant);
      requireAttendee(participant, 'upvote questions');
      requireOpen(participant.status);
    });
    const current = await this.find(this.dataSource.manager, eventId, questionId);
    if (current.author_id === meta.caller)
      throw new DomainError('question.own_upvote', 'You cannot upvote your own question');
    if (up && !VOTABLE.has(current.state)) {
      if (!isPublic(current)) throw notFound(questionId);
      throw new DomainError(
        'question.invalid_transition',
        `Cannot upvote a question that is ${current.state}`,
      );
    }
    return this.changes.run(async (manager) => {
      if (!(await holdOpen(manager, { eventId })))
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
        questionEvent(EngagementTopics.questionUpvoted, question, isPublic(row!)),
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
      requireNotBlocked(participant);
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
      } else if (!(await holdOpen(manager, { eventId }))) {
        throw new DomainError('question.closed', 'The event has ended');
      }
      const before = await this.lock(manager, eventId, questionId);
      if (!step.from.includes(before.state))
        throw new DomainError(
          'question.invalid_transition',
          `Cannot ${action} a question that is ${before.state}`,
        );
      // Dismissed while pending: withheld from the public for good. Approved after reports held
      // it: cleared, so reports no longer hold it back.
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET state = $2, updated_at = now(),
           withheld = withheld OR state = 'pending' AND $2 = 'dismissed',
           cleared_at = CASE WHEN state = 'pending' AND $2 = 'open' AND reports > 0 THEN now() ELSE cleared_at END
         WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId, step.to],
      );
      const question = toQuestion(row!, true);
      // The question's new state is announced before the stage message that shows it.
      announcements.unshift(questionEvent(step.topic, toQuestion(row!), isPublic(before) || isPublic(row!)));
      await this.changes.announce(manager, announcements);
      return question;
    });
  }

  /**
   * Its author withdraws a pending or open question: it leaves every public read. The row is
   * locked first, so a withdrawal racing a promotion either wins or finds it promoted (409).
   */
  async withdraw(meta: SignedMeta, eventId: string, questionId: string): Promise<QuestionView> {
    await this.participants.authorize(eventId, meta, (participant) => requireOpen(participant.status));
    const current = await this.find(this.dataSource.manager, eventId, questionId);
    if (current.author_id !== meta.caller) {
      // What others cannot see does not exist for them (as for upvotes and reports).
      if (!isPublic(current)) throw notFound(questionId);
      throw new DomainError('role.forbidden', 'Only its author can withdraw a question');
    }
    return this.changes.run(async (manager) => {
      if (!(await holdOpen(manager, { eventId })))
        throw new DomainError('question.closed', 'The event has ended');
      const before = await this.lock(manager, eventId, questionId);
      if (before.state === 'withdrawn') return toQuestion(before); // again: a no-op
      if (before.state !== 'pending' && before.state !== 'open')
        throw new DomainError(
          'question.invalid_transition',
          `Cannot withdraw a question that is ${before.state}`,
        );
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET state = 'withdrawn', updated_at = now() WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId],
      );
      const question = toQuestion(row!);
      await this.changes.announce(manager, [
        questionEvent(EngagementTopics.questionWithdrawn, question, isPublic(before)),
      ]);
      return question;
    });
  }

  /**
   * An attendee reports a question, once (again answers 200 and counts nothing): the counter
   * moves only when the (question, agent) row was inserted, in the same transaction. The report
   * that reaches the event's threshold sends an open question back to `pending`, out of public
   * view, in the same UPDATE. Reports are announced to moderators only.
   */
  async report(
    meta: SignedMeta,
    eventId: string,
    questionId: string,
    reason: string | undefined,
  ): Promise<QuestionView> {
    const { moderation } = await this.participants.authorize(eventId, meta, (participant) => {
      requireNotBlocked(participant);
      requireAttendee(participant, 'report questions');
      requireOpen(participant.status);
      return participant;
    });
    const current = await this.find(this.dataSource.manager, eventId, questionId);
    if (current.author_id === meta.caller)
      throw new DomainError('question.own_report', 'You cannot report your own question');
    if (!isPublic(current) && !heldByReports(current)) throw notFound(questionId);
    if (!VOTABLE.has(current.state) && !heldByReports(current))
      throw new DomainError(
        'question.invalid_transition',
        `Cannot report a question that is ${current.state}`,
      );
    return this.changes.run(async (manager) => {
      if (!(await holdOpen(manager, { eventId })))
        throw new DomainError('question.closed', 'The event has ended');
      const before = await this.lock(manager, eventId, questionId);
      const inserted = await queryRows(
        manager,
        `INSERT INTO engagement.question_reports (question_id, agent_id, reason) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING agent_id`,
        [questionId, meta.caller, reason ?? null],
      );
      if (inserted.length === 0) return toQuestion(before);
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET reports = reports + 1, updated_at = now(),
           state = CASE WHEN state = 'open' AND cleared_at IS NULL AND reports + 1 >= $2 THEN 'pending'
                   ELSE state END
         WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId, moderation.reportThreshold],
      );
      const held = before.state === 'open' && row!.state === 'pending';
      const staffView = toQuestion(row!, true);
      const announcements: Announcement[] = [
        {
          type: EngagementTopics.questionReported,
          subject: eventId,
          data: {
            question: staffView,
            reporterId: meta.caller,
            reason: reason ?? null,
          } satisfies QuestionReported,
          visibility: 'staff',
        },
      ];
      if (held) announcements.push(questionEvent(EngagementTopics.questionHeld, toQuestion(row!), true));
      await this.changes.announce(manager, announcements);
      return toQuestion(row!);
    });
  }

  /**
   * By upvotes then age (`top`), or newest first (`new`), optionally in one state. Anyone reads
   * the public states, except the open and pending questions of a blocked agent. `pending` and
   * `withdrawn` need a signed read: moderators and the host see them all, an author their own.
   * Moderators and the host also see each question's reports.
   */
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

  /**
   * The question, locked for the rest of the caller's transaction (after the stage lock) as an
   * UPDATE of it would: FOR NO KEY UPDATE, which the key-share lock of an inserted upvote or
   * report does not wait for (FOR UPDATE would deadlock two reporters).
   */
  private async lock(manager: EntityManager, eventId: string, questionId: string): Promise<QuestionRow> {
    const [row] = isUuid(questionId)
      ? await queryRows<QuestionRow>(
          manager,
          `SELECT ${QUESTION_COLUMNS} FROM engagement.questions WHERE id = $1 AND event_id = $2 FOR NO KEY UPDATE`,
          [questionId, eventId],
        )
      : [];
    if (!row) throw notFound(questionId);
    return row;
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

function notFound(questionId: string): DomainError {
  return new DomainError('question.not_found', `No question ${questionId} in this event`);
}

/** Refuses (409) a question, upvote or moderation once the event is neither scheduled nor live. */
function requireOpen(status: EventStatus): void {
  if (!OPEN_STATUSES.has(status)) throw new DomainError('question.closed', `The event is ${status}`);
}

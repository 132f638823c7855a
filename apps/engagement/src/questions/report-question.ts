import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type QuestionReported,
  type QuestionView,
  type SignedMeta,
} from '@townhall/contracts';
import { OutboxWriter, queryRows, type Announcement } from '@townhall/platform/service';
import { Participants } from '../access/participants.js';
import { QuestionBook, questionNotFound, visibleTo } from './question-book.js';
import { invalidTransition, questionEvent, VOTABLE } from './question-lifecycle.js';
import { QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';
import { holdQuestionsOpen, requireAttendeeWhileOpen } from './questions-open.js';

/**
 * A question reports sent back to `pending`: the public saw it, so its reporters may still report
 * it (once each). Only public questions are ever reported, so a pending one with reports is one.
 */
function heldByReports(row: QuestionRow): boolean {
  return row.state === 'pending' && row.reports > 0;
}

/**
 * An attendee reports a question, once (again answers 200 and counts nothing): the counter
 * moves only when the (question, agent) row was inserted, in the same transaction. The report
 * that reaches the event's threshold sends an open question back to `pending`, out of public
 * view, in the same UPDATE. Reports are announced to moderators only.
 */
@Injectable()
export class ReportQuestion {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: QuestionBook,
  ) {}

  async report(
    meta: SignedMeta,
    eventId: string,
    questionId: string,
    reason: string | undefined,
  ): Promise<QuestionView> {
    const reporter = await this.participants.authorize(eventId, meta, (participant) => {
      requireAttendeeWhileOpen(participant, 'report questions');
      return participant;
    });
    const current = await this.book.find(eventId, questionId);
    // Held by reports, it was public and may still be reported; else hidden is not found.
    const held = heldByReports(current) && !current.author_blocked;
    if (!visibleTo(current, reporter) && !held) throw questionNotFound(questionId);
    if (current.author_id === meta.caller)
      throw new DomainError('question.own_report', 'You cannot report your own question');
    if (!VOTABLE.has(current.state) && !heldByReports(current))
      throw invalidTransition('report', current.state);
    return this.outbox.run(async (manager) => {
      await holdQuestionsOpen(manager, eventId);
      const before = await this.book.lock(manager, eventId, questionId);
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
        [questionId, reporter.moderation.reportThreshold],
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
      await this.outbox.announce(manager, announcements);
      return toQuestion(row!);
    });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type QuestionView, type SignedMeta } from '@townhall/contracts';
import { type Clock, CLOCK, OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants } from '../access/participants.js';
import { recordWritePresence } from '../attendance/write-presence.js';
import { QuestionBook } from './question-book.js';
import { invalidTransition, questionEvent, VOTABLE } from './question-lifecycle.js';
import { isPublic, QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';
import { holdQuestionsOpen, requireAttendeeWhileOpen } from './questions-open.js';

/**
 * Question.upvote: one upvote per agent per question, never counted twice: the counter moves only
 * when the (question, agent) row was really inserted or deleted, in the same transaction.
 * Repeating either is a no-op that answers the question as it is. Either way the voter is present at
 * that moment (docs/product.md "The report").
 */
@Injectable()
export class UpvoteQuestion {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: QuestionBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `up` true to upvote, false to take the upvote back. */
  async upvote(meta: SignedMeta, eventId: string, questionId: string, up: boolean): Promise<QuestionView> {
    const voter = await this.participants.authorize(eventId, meta, (participant) => {
      requireAttendeeWhileOpen(participant, 'upvote questions');
      return participant;
    });
    // Taking an upvote back too: a question hidden from the voter is not found, whatever it holds.
    const current = await this.book.seenBy(eventId, questionId, voter);
    if (current.author_id === meta.caller)
      throw new DomainError('question.own_upvote', 'You cannot upvote your own question');
    if (up && !VOTABLE.has(current.state)) throw invalidTransition('upvote', current.state);
    return this.outbox.run(async (manager) => {
      await holdQuestionsOpen(manager, eventId);
      await recordWritePresence(manager, { eventId, agentId: meta.caller, at: this.clock() });
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
      if (changed.length === 0) return toQuestion(await this.book.find(eventId, questionId, manager));
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET upvotes = upvotes + $2, updated_at = now()
         WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId, up ? 1 : -1],
      );
      const question = toQuestion(row!);
      await this.outbox.announce(manager, [
        questionEvent(EngagementTopics.questionUpvoted, question, isPublic(row!)),
      ]);
      return question;
    });
  }
}

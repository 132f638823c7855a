import { Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type QuestionView, type SignedMeta } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants } from '../access/participants.js';
import { QuestionBook } from './question-book.js';
import { invalidTransition, questionEvent } from './question-lifecycle.js';
import { isPublic, QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';
import { holdQuestionsOpen, requireOpen } from './questions-open.js';

/**
 * Its author withdraws a pending or open question: it leaves every public read. The row is
 * locked first, so a withdrawal racing a promotion either wins or finds it promoted (409).
 */
@Injectable()
export class WithdrawQuestion {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: QuestionBook,
  ) {}

  async withdraw(meta: SignedMeta, eventId: string, questionId: string): Promise<QuestionView> {
    const reader = await this.participants.authorize(eventId, meta, (participant) => {
      requireOpen(participant.status);
      return participant;
    });
    // What others cannot see does not exist for them (as for upvotes and reports).
    const current = await this.book.seenBy(eventId, questionId, reader);
    if (current.author_id !== meta.caller)
      throw new DomainError('role.forbidden', 'Only its author can withdraw a question');
    return this.outbox.run(async (manager) => {
      await holdQuestionsOpen(manager, eventId);
      const before = await this.book.lock(manager, eventId, questionId);
      if (before.state === 'withdrawn') return toQuestion(before); // again: a no-op
      if (before.state !== 'pending' && before.state !== 'open')
        throw invalidTransition('withdraw', before.state);
      const [row] = await queryRows<QuestionRow>(
        manager,
        `UPDATE engagement.questions SET state = 'withdrawn', updated_at = now() WHERE id = $1 RETURNING ${QUESTION_COLUMNS}`,
        [questionId],
      );
      const question = toQuestion(row!);
      await this.outbox.announce(manager, [
        questionEvent(EngagementTopics.questionWithdrawn, question, isPublic(before)),
      ]);
      return question;
    });
  }
}

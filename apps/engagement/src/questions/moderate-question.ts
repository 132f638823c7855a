import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type QuestionAction,
  type QuestionView,
  type SignedMeta,
} from '@townhall/contracts';
import { OutboxWriter, queryRows, type Announcement } from '@townhall/platform/service';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { PostToStage } from '../stage/post-to-stage.js';
import { QuestionBook } from './question-book.js';
import { invalidTransition, questionEvent, TRANSITIONS } from './question-lifecycle.js';
import { isPublic, QUESTION_COLUMNS, toQuestion, type QuestionRow } from './question-row.js';
import { holdQuestionsOpen, requireOpen } from './questions-open.js';

/**
 * Moderators and the host approve, promote (onto the stage, while live), answer or dismiss. One
 * use case for the four: each is the same conditional UPDATE from the states it allows (of two
 * racing moderators exactly one wins and the other gets 409 question.invalid_transition), and
 * only promoting also puts the question on the stage.
 */
@Injectable()
export class ModerateQuestion {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: QuestionBook,
    private readonly stage: PostToStage,
  ) {}

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
    return this.outbox.run(async (manager) => {
      // The stage row first (taken by append(), or shared here), then the question: the lock order of every writer.
      const announcements: Announcement[] = [];
      if (action === 'promote') {
        const current = await this.book.find(eventId, questionId, manager);
        const message = await this.stage.append(manager, {
          eventId,
          authorId: meta.caller,
          body: current.body,
          kind: 'question',
          questionId,
        });
        announcements.push({ type: EngagementTopics.stagePosted, subject: eventId, data: message });
      } else {
        await holdQuestionsOpen(manager, eventId);
      }
      const before = await this.book.lock(manager, eventId, questionId);
      if (!step.from.includes(before.state)) throw invalidTransition(action, before.state);
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
      await this.outbox.announce(manager, announcements);
      return question;
    });
  }
}

import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type Moderation,
  type QuestionView,
  type SignedMeta,
} from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, SETTINGS } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { blockedProblem, Participants, STALE_STANDING } from '../access/participants.js';
import { submitQuestionCall, type SubmitQuestionArgs, type SubmitQuestionOutcome } from '../db/functions.js';
import { type EngagementSettings } from '../settings.js';
import { questionEvent } from './question-lifecycle.js';
import { eventEnded, requireAttendeeWhileOpen } from './questions-open.js';

/**
 * Attendees ask while the event is scheduled or live, a few times a minute at most: one call
 * to engagement.submit_question (the stage lock, the block, the rate, the row and its domain
 * event, and the asker's presence at that moment: docs/product.md "The report"), retried as every
 * statement is when Postgres picks it as a deadlock victim.
 */
@Injectable()
export class SubmitQuestion {
  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    @Inject(SETTINGS) private readonly settings: EngagementSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.submitQuestion = submitQuestionCall(dataSource, outbox);
  }

  private readonly submitQuestion: (args: SubmitQuestionArgs) => Promise<SubmitQuestionOutcome>;

  async submit(meta: SignedMeta, eventId: string, body: string): Promise<QuestionView> {
    // Authorized on the standing read last for the caller, which submit_question compares with
    // the standing now (a repeat asker's question is then one statement), or on a fresh read.
    const submitted = await this.participants.authorizeChecked(
      eventId,
      meta,
      (participant) => {
        requireAttendeeWhileOpen(participant, 'ask questions');
        return participant.moderation;
      },
      async (moderation, standing) => {
        const question = this.questionOf(meta, eventId, body, moderation);
        const outcome = await this.submitQuestion({
          id: question.id,
          eventId,
          authorId: meta.caller,
          body,
          at: question.createdAt,
          perMinute: this.settings.questionsPerMinute,
          state: question.state,
          events: this.outbox.prepare([
            questionEvent(EngagementTopics.questionSubmitted, question, question.state === 'open'),
          ]),
          standing,
        });
        if (outcome.outcome === 'refused' && outcome.refusal === 'stale') return STALE_STANDING;
        return { question, outcome };
      },
    );
    const { question, outcome } = submitted;
    if (outcome.outcome === 'submitted') return question;
    switch (outcome.refusal) {
      case 'ended':
        throw eventEnded();
      case 'blocked':
        throw blockedProblem();
      case 'rate_limited':
        throw new DomainError(
          'rate.limited',
          `At most ${this.settings.questionsPerMinute} questions per minute per event; wait a little`,
        );
      case 'stale':
        throw new Error('submit_question answered stale with no standing to compare');
    }
  }

  /** The question as it is written: pre-moderation holds it until a moderator approves it, seen by its author and the moderators. */
  private questionOf(
    meta: SignedMeta,
    eventId: string,
    body: string,
    moderation: Moderation,
  ): QuestionView & { state: 'pending' | 'open' } {
    return {
      id: randomUUID(),
      eventId,
      authorId: meta.caller,
      body,
      upvotes: 0,
      state: moderation.questions === 'pre' ? 'pending' : 'open',
      createdAt: this.clock().toISOString(),
    };
  }
}

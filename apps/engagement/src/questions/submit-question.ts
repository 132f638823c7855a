import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type QuestionView, type SignedMeta } from '@townhall/contracts';
import { OutboxWriter } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { blockedProblem, Participants } from '../access/participants.js';
import { submitQuestionCall, type SubmitQuestionArgs, type SubmitQuestionOutcome } from '../db/functions.js';
import { SETTINGS, type EngagementSettings } from '../tokens.js';
import { questionEvent } from './question-lifecycle.js';
import { eventEnded, requireAttendeeWhileOpen } from './questions-open.js';

/**
 * Attendees ask while the event is scheduled or live, a few times a minute at most: one call
 * to engagement.submit_question (the stage lock, the block, the rate, the row and its domain
 * event), retried as every statement is when Postgres picks it as a deadlock victim.
 */
@Injectable()
export class SubmitQuestion {
  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    @Inject(SETTINGS) private readonly settings: EngagementSettings,
  ) {
    this.submitQuestion = submitQuestionCall(dataSource, outbox);
  }

  private readonly submitQuestion: (args: SubmitQuestionArgs) => Promise<SubmitQuestionOutcome>;

  async submit(meta: SignedMeta, eventId: string, body: string): Promise<QuestionView> {
    const moderation = await this.participants.authorize(eventId, meta, (participant) => {
      requireAttendeeWhileOpen(participant, 'ask questions');
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
    const events = this.outbox.prepare([
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
        throw eventEnded();
      case 'blocked':
        throw blockedProblem();
      case 'rate_limited':
        throw new DomainError(
          'rate.limited',
          `At most ${this.settings.questionsPerMinute} questions per minute per event; wait a little`,
        );
    }
  }
}

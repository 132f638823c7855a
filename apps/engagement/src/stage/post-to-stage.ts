import { Inject, Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type StageMessageView, type SignedMeta } from '@townhall/contracts';
import { type Clock, CLOCK, OutboxWriter, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { recordWritePresence } from '../attendance/write-presence.js';
import { nextSequence } from './stage-lock.js';
import { STAGE_MESSAGE_COLUMNS, toStageMessage, type StageMessageRow } from './stage-message-row.js';

export interface StageDraft {
  eventId: string;
  authorId: string;
  body: string;
  kind: 'message' | 'question';
  questionId: string | null;
}

/**
 * Speakers, moderators and the host post to the live stage (docs/product.md "Live stage, Q&A,
 * polls"), open exactly while the event is live. A promoted question goes on the stage the same
 * way (`append`, in the promotion's transaction), so every message takes the next sequence. A post
 * is its author's presence at that moment (docs/product.md "The report"); a promotion is not.
 */
@Injectable()
export class PostToStage {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async post(meta: SignedMeta, eventId: string, body: string): Promise<StageMessageView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator', 'speaker'], 'post to the stage');
      requireNotBlocked(participant);
      if (participant.status !== 'live')
        throw new DomainError('stage.closed', `The event is ${participant.status}`);
    });
    return this.outbox.run(async (manager) => {
      const message = await this.append(manager, {
        eventId,
        authorId: meta.caller,
        body,
        kind: 'message',
        questionId: null,
      });
      await recordWritePresence(manager, { eventId, agentId: meta.caller, at: this.clock() });
      await this.outbox.announce(manager, [
        { type: EngagementTopics.stagePosted, subject: eventId, data: message },
      ]);
      return message;
    });
  }

  /** Puts a message on the stage in the caller's transaction; 409 stage.closed once the event ended. */
  async append(manager: EntityManager, draft: StageDraft): Promise<StageMessageView> {
    const sequence = await nextSequence(manager, draft.eventId);
    if (sequence === null) throw new DomainError('stage.closed', 'The event has ended');
    const [row] = await queryRows<StageMessageRow>(
      manager,
      `INSERT INTO engagement.stage_messages (event_id, sequence, author_id, body, kind, question_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${STAGE_MESSAGE_COLUMNS}`,
      [draft.eventId, sequence, draft.authorId, draft.body, draft.kind, draft.questionId],
    );
    return toStageMessage(row!);
  }
}

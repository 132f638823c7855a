import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type MessageMeta,
  type Page,
  type StageMessageView,
  type SignedMeta,
  isUuid,
} from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { nextSequence } from './stage-lock.js';
import { STAGE_MESSAGE_COLUMNS, toStageMessage, type StageMessageRow } from './stage-message-row.js';

export interface StageDraft {
  eventId: string;
  authorId: string;
  body: string;
  kind: 'message' | 'question';
  questionId: string | null;
}

/** The live stage (docs/product.md "Live stage, Q&A, polls"): open exactly while the event is live. */
@Injectable()
export class StageService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: OutboxWriter,
    private readonly participants: Participants,
  ) {}

  /** Speakers, moderators and the host post while the event is live. */
  async post(meta: SignedMeta, eventId: string, body: string): Promise<StageMessageView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator', 'speaker'], 'post to the stage');
      requireNotBlocked(participant);
      if (participant.status !== 'live')
        throw new DomainError('stage.closed', `The event is ${participant.status}`);
    });
    return this.changes.run(async (manager) => {
      const message = await this.append(manager, {
        eventId,
        authorId: meta.caller,
        body,
        kind: 'message',
        questionId: null,
      });
      await this.changes.announce(manager, [
        { type: EngagementTopics.stagePosted, subject: eventId, data: message },
      ]);
      return message;
    });
  }

  /**
   * Moderators and the host hide a message: it keeps its sequence, and its body leaves every
   * public read, the live stream and the public recording (the row keeps it, with who hid it and
   * when). Allowed whatever the event's status, so a recording can be cleaned after the end.
   * Hiding again is a no-op that answers the hidden message.
   */
  async hide(meta: SignedMeta, eventId: string, messageId: string): Promise<StageMessageView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator'], 'hide stage messages');
      requireNotBlocked(participant);
    });
    return this.changes.run(async (manager) => {
      const [row] = isUuid(messageId)
        ? await queryRows<StageMessageRow>(
            manager,
            `UPDATE engagement.stage_messages SET hidden_at = now(), hidden_by = $3
             WHERE id = $1 AND event_id = $2 AND hidden_at IS NULL RETURNING ${STAGE_MESSAGE_COLUMNS}`,
            [messageId, eventId, meta.caller],
          )
        : [];
      if (!row) return toStageMessage(await this.find(manager, eventId, messageId));
      const message = toStageMessage(row);
      await this.changes.announce(manager, [
        { type: EngagementTopics.stageHidden, subject: eventId, data: message },
      ]);
      return message;
    });
  }

  private async find(manager: EntityManager, eventId: string, messageId: string): Promise<StageMessageRow> {
    const [row] = isUuid(messageId)
      ? await queryRows<StageMessageRow>(
          manager,
          `SELECT ${STAGE_MESSAGE_COLUMNS} FROM engagement.stage_messages WHERE id = $1 AND event_id = $2`,
          [messageId, eventId],
        )
      : [];
    if (!row) throw new DomainError('stage.message_not_found', `No stage message ${messageId} in this event`);
    return row;
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

  /** Public: in sequence order after `after` (or the cursor, the last sequence of the previous page). */
  async list(
    query: { eventId: string; after: number; limit: number; cursor?: string | undefined },
    meta: MessageMeta,
  ): Promise<Page<StageMessageView>> {
    const after = query.cursor === undefined ? query.after : Number(query.cursor);
    if (query.cursor !== undefined && !/^\d{1,15}$/.test(query.cursor))
      throw new DomainError('validation.failed', 'The cursor is not valid', [
        { field: 'cursor', message: 'is not a cursor this list gave' },
      ]);
    const rows = isUuid(query.eventId)
      ? await queryRows<StageMessageRow>(
          this.dataSource,
          `SELECT ${STAGE_MESSAGE_COLUMNS} FROM engagement.stage_messages
           WHERE event_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
          [query.eventId, after, query.limit + 1],
        )
      : [];
    // Nothing here may mean no such event: the events service tells (404 event.not_found).
    if (rows.length === 0 && (after === 0 || !isUuid(query.eventId)))
      await this.participants.event(query.eventId, meta);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toStageMessage),
      nextCursor: rows.length > query.limit && last ? String(last.sequence) : null,
    };
  }

  /** Every message of the event in order, for the recording. */
  async all(manager: EntityManager, eventId: string): Promise<StageMessageView[]> {
    const rows = await queryRows<StageMessageRow>(
      manager,
      `SELECT ${STAGE_MESSAGE_COLUMNS} FROM engagement.stage_messages WHERE event_id = $1 ORDER BY sequence`,
      [eventId],
    );
    return rows.map(toStageMessage);
  }
}

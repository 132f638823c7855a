import { Injectable } from '@nestjs/common';
import { EngagementTopics, type StageMessageView, type SignedMeta, isUuid } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { StageBook } from './stage-book.js';
import { STAGE_MESSAGE_COLUMNS, toStageMessage, type StageMessageRow } from './stage-message-row.js';

/**
 * Moderators and the host hide a message: it keeps its sequence, and its body leaves every
 * public read, the live stream and the public recording (the row keeps it, with who hid it and
 * when). Allowed whatever the event's status, so a recording can be cleaned after the end.
 * Hiding again is a no-op that answers the hidden message.
 */
@Injectable()
export class HideStageMessage {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: StageBook,
  ) {}

  async hide(meta: SignedMeta, eventId: string, messageId: string): Promise<StageMessageView> {
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator'], 'hide stage messages');
      requireNotBlocked(participant);
    });
    return this.outbox.run(async (manager) => {
      const [row] = isUuid(messageId)
        ? await queryRows<StageMessageRow>(
            manager,
            `UPDATE engagement.stage_messages SET hidden_at = now(), hidden_by = $3
             WHERE id = $1 AND event_id = $2 AND hidden_at IS NULL RETURNING ${STAGE_MESSAGE_COLUMNS}`,
            [messageId, eventId, meta.caller],
          )
        : [];
      if (!row) return toStageMessage(await this.book.find(manager, eventId, messageId));
      const message = toStageMessage(row);
      await this.outbox.announce(manager, [
        { type: EngagementTopics.stageHidden, subject: eventId, data: message },
      ]);
      return message;
    });
  }
}

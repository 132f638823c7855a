import { Injectable } from '@nestjs/common';
import { DomainError, type StageMessageView, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { STAGE_MESSAGE_COLUMNS, toStageMessage, type StageMessageRow } from './stage-message-row.js';

/** Reading stage messages: one (hidden already, say), and the recording's. */
@Injectable()
export class StageBook {
  async find(manager: EntityManager, eventId: string, messageId: string): Promise<StageMessageRow> {
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

import { Injectable } from '@nestjs/common';
import { DomainError, type MessageMeta, type Page, type StageMessageView, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { Participants } from '../access/participants.js';
import { STAGE_MESSAGE_COLUMNS, toStageMessage, type StageMessageRow } from './stage-message-row.js';

/**
 * Public: the stage in sequence order after `after` (or the cursor, the last sequence of the
 * previous page), so a follower resumes exactly where it stopped.
 */
@Injectable()
export class ListStage {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
  ) {}

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
}

import { Injectable } from '@nestjs/common';
import { isUuid, type BlockView, type Page, type SignedMeta } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { BLOCK_COLUMNS, toBlock, type BlockRow } from './block-row.js';

/** Moderators and the host: the agents blocked in the event, most recent first. */
@Injectable()
export class ListBlocks {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
  ) {}

  async list(
    meta: SignedMeta,
    query: { eventId: string; limit: number; cursor?: string | undefined },
  ): Promise<Page<BlockView>> {
    await this.participants.authorize(query.eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator'], 'see who is blocked');
      requireNotBlocked(participant);
    });
    const params: unknown[] = [query.eventId, query.limit + 1];
    let after = '';
    if (query.cursor !== undefined) {
      params.push(decodeCursor(query.cursor, ['s']).s);
      after = 'AND seq < $3';
    }
    const rows = isUuid(query.eventId)
      ? await queryRows<BlockRow>(
          this.dataSource,
          `SELECT ${BLOCK_COLUMNS} FROM engagement.blocks WHERE event_id = $1 ${after}
           ORDER BY seq DESC LIMIT $2`,
          params,
        )
      : [];
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toBlock),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ s: Number(last.seq) }) : null,
    };
  }
}

import { Injectable } from '@nestjs/common';
import { type MessageMeta, type Page, type PollView, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { Participants } from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { PollBook } from './poll-book.js';
import { POLL_COLUMNS, type PollRow } from './poll-row.js';

/** Public: an event's polls in the order they were opened. */
@Injectable()
export class ListPolls {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
    private readonly book: PollBook,
  ) {}

  async list(
    query: { eventId: string; limit: number; cursor?: string | undefined },
    meta: MessageMeta,
  ): Promise<Page<PollView>> {
    const after = query.cursor ? decodeCursor(query.cursor, ['s']).s : 0;
    const rows = isUuid(query.eventId)
      ? await queryRows<PollRow>(
          this.dataSource,
          `SELECT ${POLL_COLUMNS} FROM engagement.polls WHERE event_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [query.eventId, after, query.limit + 1],
        )
      : [];
    if (rows.length === 0 && (!query.cursor || !isUuid(query.eventId)))
      await this.participants.event(query.eventId, meta); // 404 event.not_found, or an empty list
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: await this.book.views(this.dataSource.manager, page),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ s: Number(last.seq) }) : null,
    };
  }
}

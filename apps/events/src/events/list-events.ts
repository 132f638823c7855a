import { Injectable } from '@nestjs/common';
import { isUuid, type EventListQuery, type EventView, type Page } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { decodeCursor, encodeCursor } from './cursor.js';
import { EVENT_COLUMNS, toEventView, type EventRow } from './event-row.js';

/**
 * The public list of events: filtered by status, host, series, start time and words; keyset paging
 * on (listing_rank, starts_at, id).
 */
@Injectable()
export class ListEvents {
  constructor(private readonly dataSource: DataSource) {}

  async list(query: EventListQuery): Promise<Page<EventView>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.status) where.push(`status = ${param(query.status)}`);
    if (query.hostId) where.push(`host_id = ${param(query.hostId)}`);
    if (query.seriesId) {
      if (!isUuid(query.seriesId)) return { items: [], nextCursor: null };
      where.push(`series_id = ${param(query.seriesId)}`);
    }
    if (query.from) where.push(`starts_at >= ${param(query.from)}`);
    if (query.to) where.push(`starts_at < ${param(query.to)}`);
    if (query.q) where.push(`search @@ websearch_to_tsquery('simple', ${param(query.q)})`);
    if (query.cursor) {
      const cursor = decodeCursor(query.cursor);
      where.push(
        `(listing_rank, starts_at, id) > (${param(cursor.rank)}::smallint, ${param(cursor.startsAt)}::timestamptz, ${param(cursor.id)}::uuid)`,
      );
    }
    // Events someone holds a ticket in first (migrations/…-listing-rank.ts), each part by start.
    const rows = await queryRows<EventRow & { listing_rank: number }>(
      this.dataSource,
      `SELECT ${EVENT_COLUMNS}, listing_rank FROM events.events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY listing_rank, starts_at, id LIMIT ${param(query.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toEventView),
      nextCursor:
        rows.length > query.limit && last
          ? encodeCursor({ rank: last.listing_rank, startsAt: last.starts_at.toISOString(), id: last.id })
          : null,
    };
  }
}

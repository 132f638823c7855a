import { Injectable } from '@nestjs/common';
import type { Page, SeriesListQuery, SeriesView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { decodeSeriesCursor, encodeSeriesCursor, SERIES_POSITION } from './cursor.js';
import { SeriesBook } from './series-book.js';
import { SERIES_COLUMNS, type SeriesRow } from './series-row.js';

/**
 * The public list of series: newest first, by host and by words in the title or description (the
 * `search` column, as the event list finds words); keyset paging on (created_at, id).
 */
@Injectable()
export class ListSeries {
  constructor(
    private readonly dataSource: DataSource,
    private readonly book: SeriesBook,
  ) {}

  async list(query: SeriesListQuery): Promise<Page<SeriesView>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.hostId) where.push(`host_id = ${param(query.hostId)}`);
    if (query.q) where.push(`search @@ websearch_to_tsquery('simple', ${param(query.q)})`);
    if (query.cursor) {
      const cursor = decodeSeriesCursor(query.cursor);
      where.push(`(created_at, id) < (${param(cursor.createdAt)}::timestamptz, ${param(cursor.id)}::uuid)`);
    }
    const rows = await queryRows<SeriesRow & { position: string }>(
      this.dataSource,
      `SELECT ${SERIES_COLUMNS}, ${SERIES_POSITION} AS position FROM events.series
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY created_at DESC, id DESC LIMIT ${param(query.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: await this.book.views(page),
      nextCursor:
        rows.length > query.limit && last
          ? encodeSeriesCursor({ createdAt: last.position, id: last.id })
          : null,
    };
  }
}

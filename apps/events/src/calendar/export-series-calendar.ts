import { Inject, Injectable } from '@nestjs/common';
import type { SeriesCalendarFile } from '@townhall/contracts';
import { CLOCK, queryRows, SETTINGS, type Clock } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { EVENT_COLUMNS, type EventRow } from '../events/event-row.js';
import { SeriesBook } from '../series/series-book.js';
import type { EventsSettings } from '../settings.js';
import { calendarEntry } from './calendar-entry.js';
import { renderCalendar } from './ics.js';
import { seriesCalendarTag, seriesCalendarWindow } from './series-window.js';

/**
 * A series as an RFC 5545 file: its occurrences from 3 months back to 12 ahead, cancelled ones
 * included (seriesCalendarWindow), with its entity tag.
 */
@Injectable()
export class ExportSeriesCalendar {
  /** The public origin (PUBLIC_BASE_URL): the entries' links, and part of the entity tag. */
  private readonly baseUrl: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly series: SeriesBook,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SETTINGS) settings: EventsSettings,
  ) {
    this.baseUrl = settings.publicBaseUrl;
  }

  /**
   * The series' file and its entity tag; only the tag (body null) when `ifNoneMatch` names it, which
   * costs two index reads and no rendering.
   */
  async export(seriesId: string, ifNoneMatch?: string): Promise<SeriesCalendarFile> {
    const series = await this.series.find(seriesId);
    const { baseUrl } = this;
    const { from, to } = seriesCalendarWindow(this.clock());
    const [versions] = await queryRows<{ occurrences: string | null }>(
      this.dataSource,
      `SELECT count(*) || ':' || md5(string_agg(id::text || ':' || version, ',' ORDER BY starts_at, id)) AS occurrences
       FROM events.events WHERE series_id = $1 AND starts_at >= $2 AND starts_at < $3`,
      [seriesId, from, to],
    );
    const filename = `series-${series.id}.ics`;
    const etag = seriesCalendarTag(series.updated_at, versions?.occurrences ?? '', baseUrl);
    if (ifNoneMatch !== undefined && matchesTag(ifNoneMatch, etag)) return { filename, etag, body: null };
    const rows = await queryRows<EventRow>(
      this.dataSource,
      `SELECT ${EVENT_COLUMNS} FROM events.events
       WHERE series_id = $1 AND starts_at >= $2 AND starts_at < $3 ORDER BY starts_at, id`,
      [seriesId, from, to],
    );
    return {
      filename,
      etag,
      body: renderCalendar(
        rows.map((row) => calendarEntry(row, baseUrl)),
        { name: series.title, baseUrl },
      ),
    };
  }
}

/** RFC 9110 If-None-Match: a list of (possibly weak) entity tags, or `*`. */
function matchesTag(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}

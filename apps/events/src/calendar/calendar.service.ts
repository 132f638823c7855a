import { Inject, Injectable } from '@nestjs/common';
import type { CalendarFile, SeriesCalendarFile } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { EventsService } from '../events/events.service.js';
import { EVENT_COLUMNS, type EventRow } from '../events/event-row.js';
import { SeriesService } from '../series/series.service.js';
import { CLOCK, PUBLIC_BASE_URL, type Clock } from '../tokens.js';
import { renderCalendar, type CalendarEvent } from './ics.js';
import { seriesCalendarTag, seriesCalendarWindow } from './series-window.js';

/**
 * RFC 5545 exports of one event and of a series (its occurrences from 3 months back to 12 ahead,
 * cancelled ones included: seriesCalendarWindow).
 */
@Injectable()
export class CalendarService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsService,
    private readonly series: SeriesService,
    @Inject(PUBLIC_BASE_URL) private readonly baseUrl: string,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async event(eventId: string): Promise<CalendarFile> {
    const row = await this.events.row(this.dataSource.manager, eventId);
    return {
      filename: `event-${row.id}.ics`,
      body: renderCalendar([this.entry(row)], { name: row.title, baseUrl: this.baseUrl }),
    };
  }

  /**
   * The series' file and its entity tag; only the tag (body null) when `ifNoneMatch` names it, which
   * costs two index reads and no rendering.
   */
  async seriesCalendar(seriesId: string, ifNoneMatch?: string): Promise<SeriesCalendarFile> {
    const series = await this.series.row(this.dataSource.manager, seriesId);
    const { from, to } = seriesCalendarWindow(this.clock());
    const [versions] = await queryRows<{ occurrences: string | null }>(
      this.dataSource,
      `SELECT count(*) || ':' || md5(string_agg(id::text || ':' || version, ',' ORDER BY starts_at, id)) AS occurrences
       FROM events.events WHERE series_id = $1 AND starts_at >= $2 AND starts_at < $3`,
      [seriesId, from, to],
    );
    const filename = `series-${series.id}.ics`;
    const etag = seriesCalendarTag(series.updated_at, versions?.occurrences ?? '', this.baseUrl);
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
        rows.map((row) => this.entry(row)),
        { name: series.title, baseUrl: this.baseUrl },
      ),
    };
  }

  private entry(row: EventRow): CalendarEvent {
    return {
      id: row.id,
      title: row.title,
      description: row.description,
      startsAt: row.starts_at.toISOString(),
      endsAt: row.ends_at.toISOString(),
      timezone: row.timezone,
      status: row.status,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      sequence: row.version,
      url: `${this.baseUrl}/events/${row.id}`,
      hostId: row.host_id,
      seriesId: row.series_id,
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

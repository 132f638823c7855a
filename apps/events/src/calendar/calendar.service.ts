import { Inject, Injectable } from '@nestjs/common';
import type { CalendarFile } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { EventsService } from '../events/events.service.js';
import { EVENT_COLUMNS, type EventRow } from '../events/event-row.js';
import { SeriesService } from '../series/series.service.js';
import { PUBLIC_BASE_URL } from '../tokens.js';
import { renderCalendar, type CalendarEvent } from './ics.js';

/** RFC 5545 exports of one event and of a whole series (every occurrence, cancelled ones included). */
@Injectable()
export class CalendarService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsService,
    private readonly series: SeriesService,
    @Inject(PUBLIC_BASE_URL) private readonly baseUrl: string,
  ) {}

  async event(eventId: string): Promise<CalendarFile> {
    const row = await this.events.row(this.dataSource.manager, eventId);
    return {
      filename: `event-${row.id}.ics`,
      body: renderCalendar([this.entry(row)], { name: row.title, baseUrl: this.baseUrl }),
    };
  }

  async seriesCalendar(seriesId: string): Promise<CalendarFile> {
    const series = await this.series.row(this.dataSource.manager, seriesId);
    const rows = await queryRows<EventRow>(
      this.dataSource,
      `SELECT ${EVENT_COLUMNS} FROM events.events WHERE series_id = $1 ORDER BY starts_at, id`,
      [seriesId],
    );
    return {
      filename: `series-${series.id}.ics`,
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

import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EventTopics,
  isUuid,
  type EventStatus,
  type SeriesOccurrence,
  type SeriesView,
} from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { EVENT_COLUMNS, toEventView, type EventRow } from '../events/event-row.js';
import type { Occurrence } from './recurrence.js';
import { SERIES_COLUMNS, toSeriesView, type SeriesRow } from './series-row.js';

/**
 * Series rows as the series' use cases share them: one series (locked, for a change), their views,
 * and the occurrences their rule plans. Occurrences are ordinary events with a `series_id` and a
 * stable `occurrence_index`; the unique (series_id, occurrence_index) makes creating them
 * idempotent, so any replica may extend any series at any time.
 */
@Injectable()
export class SeriesBook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  /**
   * The series (in `manager`'s transaction, if given, and locked there with `lock`); 404
   * `series.not_found` if there is none.
   */
  async find(
    seriesId: string,
    manager: EntityManager = this.dataSource.manager,
    options: { lock?: boolean } = {},
  ): Promise<SeriesRow> {
    const [row] = isUuid(seriesId)
      ? await queryRows<SeriesRow>(
          manager,
          `SELECT ${SERIES_COLUMNS} FROM events.series WHERE id = $1${options.lock ? ' FOR UPDATE' : ''}`,
          [seriesId],
        )
      : [];
    if (!row) throw new DomainError('series.not_found', `No series ${seriesId}`);
    return row;
  }

  /** The series as anyone may read it, with its followers and next occurrences. */
  async view(seriesId: string, manager: EntityManager = this.dataSource.manager): Promise<SeriesView> {
    const [view] = await this.views([await this.find(seriesId, manager)], manager);
    return view!;
  }

  /** The views of `rows`, in their order: follower counts and next 10 occurrences in two queries. */
  async views(rows: SeriesRow[], manager: EntityManager = this.dataSource.manager): Promise<SeriesView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const counts = await queryRows<{ series_id: string; count: number }>(
      manager,
      `SELECT series_id, count(*)::int AS count FROM events.series_followers
       WHERE series_id = ANY($1::uuid[]) GROUP BY series_id`,
      [ids],
    );
    const upcoming = await queryRows<{ series_id: string; id: string; starts_at: Date; status: EventStatus }>(
      manager,
      `SELECT series_id, id, starts_at, status FROM (
         SELECT series_id, id, starts_at, status,
                row_number() OVER (PARTITION BY series_id ORDER BY starts_at, id) AS rank
         FROM events.events
         WHERE series_id = ANY($1::uuid[]) AND status IN ('scheduled', 'live') AND ends_at > now()
       ) AS next WHERE rank <= 10 ORDER BY starts_at, id`,
      [ids],
    );
    const followers = new Map(counts.map((count) => [count.series_id, count.count]));
    const occurrences = new Map<string, SeriesOccurrence[]>();
    for (const event of upcoming) {
      const list = occurrences.get(event.series_id) ?? [];
      list.push({ eventId: event.id, startsAt: event.starts_at.toISOString(), status: event.status });
      occurrences.set(event.series_id, list);
    }
    return rows.map((row) => toSeriesView(row, followers.get(row.id) ?? 0, occurrences.get(row.id) ?? []));
  }

  /** Inserts the occurrences that do not exist yet and announces each new one. */
  async materialize(manager: EntityManager, series: SeriesRow, planned: Occurrence[]): Promise<EventRow[]> {
    const { template } = series;
    const rows = await queryRows<EventRow>(
      manager,
      `INSERT INTO events.events (title, description, agenda, starts_at, ends_at, timezone, host_id, moderators, speakers,
         capacity, ticketing, series_id, occurrence_index, access)
       SELECT $1, $2, $3::jsonb, o.starts_at, o.starts_at + make_interval(mins => $4), $5, $6, $7, $8, $9, $10::jsonb, $11, o.idx, $14
       FROM unnest($12::int[], $13::timestamptz[]) AS o(idx, starts_at)
       ON CONFLICT (series_id, occurrence_index) DO NOTHING
       RETURNING ${EVENT_COLUMNS}`,
      [
        series.title,
        series.description,
        JSON.stringify(template.agenda),
        template.durationMinutes,
        series.recurrence.timezone,
        series.host_id,
        template.moderators,
        template.speakers,
        template.capacity,
        JSON.stringify(template.ticketing),
        series.id,
        planned.map((occurrence) => occurrence.index),
        planned.map((occurrence) => occurrence.startsAt.toISOString()),
        // Templates stored before access existed are open.
        template.access ?? 'open',
      ],
    );
    rows.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime());
    await this.outbox.announce(
      manager,
      rows.map((row) => ({ type: EventTopics.scheduled, subject: row.id, data: toEventView(row) })),
    );
    return rows;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_MODERATION,
  DEFAULT_OFFER_MINUTES,
  DomainError,
  isUuid,
  EventTopics,
  parseOrThrow,
  SeriesTopics,
  type CreateSeries,
  type EventStatus,
  type Page,
  type SeriesFollowChange,
  type SeriesListQuery,
  type SeriesOccurrence,
  type SeriesView,
} from '@townhall/contracts';
import { Periodic, queryRows, type Logger } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { checkEventRules } from '../events/event-rules.js';
import { EVENT_COLUMNS, toEventView, type EventRow } from '../events/event-row.js';
import { requireRoomFor, type HostLimits } from '../events/host-limits.js';
import { OutboxWriter } from '@townhall/platform/service';
import type { EventsConfig } from '../config.js';
import { CLOCK, HOST_LIMITS, LOGGER, type Clock } from '../tokens.js';
import {
  extensionDue,
  firstOccurrences,
  normaliseRrule,
  plannedOccurrences,
  RecurrenceSchema,
  type Occurrence,
} from './recurrence.js';
import { decodeSeriesCursor, encodeSeriesCursor, SERIES_POSITION } from './cursor.js';
import { SERIES_COLUMNS, toSeriesView, type SeriesRow } from './series-row.js';

const RecurrenceField = z.strictObject({ recurrence: RecurrenceSchema });

/**
 * Recurring series (docs/product.md "Series"). Occurrences are ordinary events with a
 * `series_id` and a stable `occurrence_index`, created ahead up to the horizon; the
 * unique (series_id, occurrence_index) makes creating them idempotent, so any replica
 * may extend any series at any time.
 */
/** How far back a new series may start. */
const MAX_PAST_START_MS = 7 * 86_400_000;
/** Series extended per transaction of a pass. */
const EXTEND_BATCH = 50;

@Injectable()
export class SeriesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(HOST_LIMITS) private readonly limits: HostLimits,
  ) {}

  async create(hostId: string, input: CreateSeries): Promise<SeriesView> {
    const { recurrence } = parseOrThrow(RecurrenceField, { recurrence: input.recurrence });
    const stored = { ...recurrence, rrule: normaliseRrule(recurrence.rrule) };
    const now = this.clock();
    // A series starts now or later (at most a week back, for a series created after its first
    // morning): expanding one that began centuries ago would count every occurrence since.
    const [start] = firstOccurrences(stored, 1);
    if (start && start.startsAt.getTime() < now.getTime() - MAX_PAST_START_MS) {
      throw new DomainError(
        'validation.failed',
        'recurrence.startsAt: must not be more than 7 days in the past',
        [{ field: 'recurrence.startsAt', message: 'must not be more than 7 days in the past' }],
      );
    }
    const planned = plannedOccurrences(stored, now);
    if (planned.length === 0) {
      throw new DomainError('validation.failed', 'recurrence: the rule has no upcoming occurrence', [
        { field: 'recurrence.rrule', message: 'the rule has no upcoming occurrence' },
      ]);
    }
    const { template } = input;
    const first = planned[0]!.startsAt;
    checkEventRules(
      {
        title: input.title,
        description: input.description,
        agenda: template.agenda,
        startsAt: first.toISOString(),
        endsAt: new Date(first.getTime() + template.durationMinutes * 60_000).toISOString(),
        timezone: stored.timezone,
        capacity: template.capacity,
        moderators: template.moderators,
        speakers: template.speakers,
        ticketing: template.ticketing,
        moderation: DEFAULT_MODERATION,
        offerMinutes: DEFAULT_OFFER_MINUTES,
        access: template.access,
      },
      hostId,
      now,
      { requireFuture: false },
    );

    const seriesId = await this.outbox.run(async (manager) => {
      await requireRoomFor(manager, 'series', hostId, this.limits.series);
      const [row] = await queryRows<SeriesRow>(
        manager,
        `INSERT INTO events.series (title, description, host_id, recurrence, template, extend_due_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6) RETURNING ${SERIES_COLUMNS}`,
        [
          input.title,
          input.description,
          hostId,
          JSON.stringify(stored),
          JSON.stringify(template),
          extensionDue(stored, planned, now),
        ],
      );
      const created = await this.materialize(manager, row!, planned);
      const view = toSeriesView(
        row!,
        0,
        created.slice(0, 10).map((event) => ({
          eventId: event.id,
          startsAt: event.starts_at.toISOString(),
          status: event.status,
        })),
      );
      await this.outbox.announce(manager, [{ type: SeriesTopics.created, subject: row!.id, data: view }]);
      return row!.id;
    });
    return this.get(seriesId);
  }

  async get(seriesId: string): Promise<SeriesView> {
    const [view] = await this.views([await this.row(this.dataSource.manager, seriesId)]);
    return view!;
  }

  /**
   * Newest first, by host and by words in the title or description (the `search` column, as the
   * event list finds words); keyset paging on (created_at, id).
   */
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
      items: await this.views(page),
      nextCursor:
        rows.length > query.limit && last
          ? encodeSeriesCursor({ createdAt: last.position, id: last.id })
          : null,
    };
  }

  /** The views of `rows`, in their order: follower counts and next 10 occurrences in two queries. */
  private async views(
    rows: SeriesRow[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SeriesView[]> {
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

  /** Follow (or unfollow): idempotent; the domain event is written only when something changed. */
  async follow(seriesId: string, agentId: string, follow: boolean): Promise<SeriesView> {
    await this.outbox.run(async (manager) => {
      await this.row(manager, seriesId);
      const changed = follow
        ? await queryRows(
            manager,
            `INSERT INTO events.series_followers (series_id, agent_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING RETURNING agent_id`,
            [seriesId, agentId],
          )
        : await queryRows(
            manager,
            'DELETE FROM events.series_followers WHERE series_id = $1 AND agent_id = $2 RETURNING agent_id',
            [seriesId, agentId],
          );
      if (changed.length > 0) {
        const data: SeriesFollowChange = { seriesId, agentId };
        await this.outbox.announce(manager, [
          { type: follow ? SeriesTopics.followed : SeriesTopics.unfollowed, subject: seriesId, data },
        ]);
      }
    });
    return this.get(seriesId);
  }

  /**
   * The host ends the series (docs/product.md "Series"): nothing is scheduled for it any more, and
   * each occurrence not yet started that nobody holds a ticket for (the `tickets_sold` counts) is
   * cancelled; those with tickets stay, for their holders, until the host cancels one. The series
   * row is locked first, so an extension at work finishes before and one after finds it ended.
   * Idempotent: an ended series answers as it is, and nothing is announced again.
   */
  async end(seriesId: string, caller: string): Promise<SeriesView> {
    await this.outbox.run(async (manager) => {
      const series = await this.row(manager, seriesId, { lock: true });
      if (series.host_id !== caller)
        throw new DomainError('role.forbidden', 'Only the host can end this series');
      if (series.ended_at !== null) return;
      const now = this.clock();
      await queryRows(
        manager,
        'UPDATE events.series SET ended_at = $2, extend_due_at = NULL, updated_at = now() WHERE id = $1',
        [seriesId, now],
      );
      const cancelled = await queryRows<EventRow>(
        manager,
        `UPDATE events.events SET status = 'cancelled', cancelled_at = now(), updated_at = now(), version = version + 1
         WHERE series_id = $1 AND status = 'scheduled' AND starts_at > $2
           AND NOT EXISTS (SELECT 1 FROM jsonb_each_text(tickets_sold) AS sold WHERE sold.value::int > 0)
         RETURNING ${EVENT_COLUMNS}`,
        [seriesId, now],
      );
      cancelled.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime());
      const [view] = await this.views([await this.row(manager, seriesId)], manager);
      await this.outbox.announce(manager, [
        ...cancelled.map((row) => ({ type: EventTopics.cancelled, subject: row.id, data: toEventView(row) })),
        { type: SeriesTopics.ended, subject: seriesId, data: view! },
      ]);
    });
    return this.get(seriesId);
  }

  /**
   * Creates the occurrences that have come within the horizon since the last look, as time passes.
   * Only live series whose `extend_due_at` has come are read, a batch at a time, each locked with
   * `FOR UPDATE SKIP LOCKED` in the transaction that extends it and moves its due time on: on
   * every replica at once, each due series is extended by one of them, and an ended one by none.
   */
  @Periodic<EventsConfig>({ every: 'SERIES_EXTEND_INTERVAL_MS', runAtStart: true })
  async extendAll(): Promise<number> {
    const now = this.clock();
    let created = 0;
    for (;;) {
      const { count, full } = await this.outbox.run(async (manager) => {
        const due = await queryRows<SeriesRow>(
          manager,
          `SELECT ${SERIES_COLUMNS} FROM events.series
           WHERE ended_at IS NULL AND extend_due_at <= $1
           ORDER BY extend_due_at LIMIT ${EXTEND_BATCH} FOR UPDATE SKIP LOCKED`,
          [now],
        );
        let count = 0;
        for (const series of due) {
          let planned: Occurrence[] = [];
          let next: Date | null;
          // One series whose rule cannot be expanded (say, a zone the runtime no longer knows)
          // must not stop the others: it is looked at again a day later.
          try {
            planned = plannedOccurrences(series.recurrence, now);
            next = extensionDue(series.recurrence, planned, now);
          } catch (error) {
            this.logger.error({ err: error, seriesId: series.id }, 'could not extend series');
            next = new Date(now.getTime() + 86_400_000);
          }
          if (planned.length > 0) count += (await this.materialize(manager, series, planned)).length;
          await queryRows(manager, 'UPDATE events.series SET extend_due_at = $2 WHERE id = $1', [
            series.id,
            next,
          ]);
        }
        return { count, full: due.length === EXTEND_BATCH };
      });
      created += count;
      if (!full) return created;
    }
  }

  /** Inserts the occurrences that do not exist yet and announces each new one. */
  private async materialize(
    manager: EntityManager,
    series: SeriesRow,
    planned: Occurrence[],
  ): Promise<EventRow[]> {
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

  async row(manager: EntityManager, seriesId: string, options: { lock?: boolean } = {}): Promise<SeriesRow> {
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
}

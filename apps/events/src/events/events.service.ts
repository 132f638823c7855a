import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  isUuid,
  EventFieldsSchema,
  EventTopics,
  Inventory,
  parseOrThrow,
  type EventAccess,
  type EventChanges,
  type EventFields,
  type EventListQuery,
  type EventView,
  type LifecycleAction,
  type Page,
} from '@townhall/contracts';
import { queryRows, type ServiceClient } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { OutboxWriter } from '@townhall/platform/service';
import { CLOCK, HOST_LIMITS, SERVICE_TIMEOUT_MS, SERVICES, type Clock } from '../tokens.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { checkEventRules } from './event-rules.js';
import { EVENT_COLUMNS, toEventView, type EventRow } from './event-row.js';
import { requireRoomFor, type HostLimits } from './host-limits.js';
import { OneAtATime } from './one-at-a-time.js';

/** Each lifecycle action is a compare-and-set from exactly one state (docs/product.md "Event lifecycle"). */
const TRANSITIONS = {
  start: { from: 'scheduled', to: 'live', stamp: 'started_at', topic: EventTopics.started },
  end: { from: 'live', to: 'past', stamp: 'ended_at', topic: EventTopics.ended },
  cancel: { from: 'scheduled', to: 'cancelled', stamp: 'cancelled_at', topic: EventTopics.cancelled },
} as const;

/** The editable columns, in the order of fieldValues(). */
const FIELD_COLUMNS =
  'title, description, agenda, starts_at, ends_at, timezone, moderators, speakers, capacity, ticketing, moderation, offer_minutes, access';

function fieldValues(fields: EventFields): unknown[] {
  return [
    fields.title,
    fields.description,
    JSON.stringify(fields.agenda),
    fields.startsAt,
    fields.endsAt,
    fields.timezone,
    fields.moderators,
    fields.speakers,
    fields.capacity,
    JSON.stringify(fields.ticketing),
    JSON.stringify(fields.moderation),
    fields.offerMinutes,
    fields.access,
  ];
}

@Injectable()
export class EventsService {
  /** This process's PATCHes, one at a time per event (see update()). */
  private readonly patches: OneAtATime;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICES) private readonly services: ServiceClient,
    @Inject(SERVICE_TIMEOUT_MS) serviceTimeoutMs: number,
    @Inject(HOST_LIMITS) private readonly limits: HostLimits,
  ) {
    this.patches = new OneAtATime({ maxWaitMs: serviceTimeoutMs, tooLong: changingTooOften });
  }

  async create(hostId: string, fields: EventFields): Promise<EventView> {
    checkEventRules(fields, hostId, this.clock(), { requireFuture: true });
    return this.outbox.run(async (manager) => {
      await requireRoomFor(manager, 'events', hostId, this.limits.events);
      const [row] = await queryRows<EventRow>(
        manager,
        `INSERT INTO events.events (${FIELD_COLUMNS}, host_id)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14) RETURNING ${EVENT_COLUMNS}`,
        [...fieldValues(fields), hostId],
      );
      const view = toEventView(row!);
      await this.outbox.announce(manager, [{ type: EventTopics.scheduled, subject: view.id, data: view }]);
      return view;
    });
  }

  async get(eventId: string): Promise<EventView> {
    return toEventView(await this.row(this.dataSource.manager, eventId));
  }

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

  /**
   * PATCH by the host while scheduled; the merged event must pass every rule again. A change of
   * capacity or ticketing is decided first by ticketing, where the seats are (409
   * `event.capacity_below_sold` if fewer seats than are sold), stamped with the version this
   * change will be recorded as; then it is recorded here only if the event is still at the
   * version it was read at. If another change came first, the patch is merged again onto the
   * newer event and decided again. Once ticketing has decided, the patch stands even if the event
   * was started meanwhile: it was accepted first. No transaction is held while ticketing decides.
   * This process runs an event's PATCHes one at a time, so that a burst of them is decided once
   * each rather than retried against each other (one that waited SERVICE_TIMEOUT_MS for its turn
   * is refused with 503 `service.unavailable`); replicas still race, and the version decides.
   */
  update(eventId: string, caller: string, changes: EventChanges, requestId: string): Promise<EventView> {
    return this.patches.run(eventId, () => this.decideAndRecord(eventId, caller, changes, requestId));
  }

  private async decideAndRecord(
    eventId: string,
    caller: string,
    changes: EventChanges,
    requestId: string,
  ): Promise<EventView> {
    const decidesSeats = changes.capacity !== undefined || changes.ticketing !== undefined;
    let decided = false;
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > MAX_UPDATE_ATTEMPTS) throw changingTooOften();
      const current = await this.row(this.dataSource.manager, eventId);
      if (current.host_id !== caller)
        throw new DomainError('role.forbidden', 'Only the host can edit this event');
      if (current.status !== 'scheduled' && !decided)
        throw new DomainError('event.not_editable', `The event is ${current.status}`);
      const merged = this.merge(current, changes, caller);
      if (decidesSeats) {
        const decision = await this.services.send(
          Inventory.changeCapacity,
          { eventId, version: current.version + 1, capacity: merged.capacity, ticketing: merged.ticketing },
          { requestId, caller },
        );
        if (!decision.applied) {
          await retryPause(attempt);
          continue;
        }
        decided = true;
      }
      const recorded = await this.outbox.run(async (manager) => {
        const [row] = await queryRows<EventRow>(
          manager,
          `UPDATE events.events SET (${FIELD_COLUMNS}) = ($3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14, $15),
             version = version + 1, updated_at = now(),
             -- a new start time is reminded of again (EventReminders)
             reminded_at = CASE WHEN starts_at = $6::timestamptz THEN reminded_at END
           WHERE id = $1 AND version = $2 RETURNING ${EVENT_COLUMNS}`,
          [eventId, current.version, ...fieldValues(merged)],
        );
        if (!row) return undefined;
        const view = toEventView(row);
        await this.outbox.announce(manager, [{ type: EventTopics.updated, subject: view.id, data: view }]);
        return view;
      });
      if (recorded) return recorded;
      await retryPause(attempt);
    }
  }

  private merge(current: EventRow, changes: EventChanges, caller: string): EventFields {
    const before = toEventView(current);
    const merged: EventFields = parseOrThrow(EventFieldsSchema, {
      title: changes.title ?? before.title,
      description: changes.description ?? before.description,
      agenda: changes.agenda ?? before.agenda,
      startsAt: changes.startsAt ?? before.startsAt,
      endsAt: changes.endsAt ?? before.endsAt,
      timezone: changes.timezone ?? before.timezone,
      capacity: changes.capacity ?? before.capacity,
      moderators: changes.moderators ?? before.moderators,
      speakers: changes.speakers ?? before.speakers,
      ticketing: changes.ticketing ?? before.ticketing,
      moderation: { ...before.moderation, ...changes.moderation },
      offerMinutes: changes.offerMinutes ?? before.offerMinutes,
      access: changes.access ?? before.access,
    });
    checkEventRules(merged, caller, this.clock(), { requireFuture: changes.startsAt !== undefined });
    return merged;
  }

  /**
   * start / end / cancel as one conditional UPDATE: of two racing transitions exactly one
   * matches the expected state; the other finds none and gets 409.
   */
  async transition(eventId: string, caller: string, action: LifecycleAction): Promise<EventView> {
    const step = TRANSITIONS[action];
    return this.outbox.run(async (manager) => {
      const [row] = isUuid(eventId)
        ? await queryRows<EventRow>(
            manager,
            `UPDATE events.events SET status = $3, ${step.stamp} = now(), updated_at = now(), version = version + 1
             WHERE id = $1 AND host_id = $2 AND status = $4 RETURNING ${EVENT_COLUMNS}`,
            [eventId, caller, step.to, step.from],
          )
        : [];
      if (!row) {
        const current = await this.row(manager, eventId);
        if (current.host_id !== caller)
          throw new DomainError('role.forbidden', `Only the host can ${action} this event`);
        throw new DomainError(
          'event.invalid_transition',
          `Cannot ${action} an event that is ${current.status}`,
        );
      }
      const view = toEventView(row);
      await this.outbox.announce(manager, [{ type: step.topic, subject: view.id, data: view }]);
      return view;
    });
  }

  /** The role query other services ask before letting an agent act in an event. */
  async access(eventId: string, agentId: string): Promise<EventAccess> {
    const row = await this.row(this.dataSource.manager, eventId);
    const role =
      row.host_id === agentId
        ? 'host'
        : row.moderators.includes(agentId)
          ? 'moderator'
          : row.speakers.includes(agentId)
            ? 'speaker'
            : null;
    return {
      eventId: row.id,
      status: row.status,
      hostId: row.host_id,
      role,
      startsAt: row.starts_at.toISOString(),
      endsAt: row.ends_at.toISOString(),
      capacity: row.capacity,
      ticketing: row.ticketing,
      moderation: row.moderation,
      offerMinutes: row.offer_minutes,
      access: row.access,
      moderators: row.moderators,
      speakers: row.speakers,
      seriesId: row.series_id,
      version: row.version,
      updatedAt: row.updated_at.toISOString(),
    };
  }

  async row(manager: EntityManager, eventId: string, options: { lock?: boolean } = {}): Promise<EventRow> {
    const [row] = isUuid(eventId)
      ? await queryRows<EventRow>(
          manager,
          `SELECT ${EVENT_COLUMNS} FROM events.events WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
          [eventId],
        )
      : [];
    if (!row) throw new DomainError('event.not_found', `No event ${eventId}`);
    return row;
  }
}

/** Concurrent edits of one event each win a round; bounded so a request never spins forever. */
const MAX_UPDATE_ATTEMPTS = 100;

function changingTooOften(): DomainError {
  return new DomainError('service.unavailable', 'The event is changing too often; retry shortly');
}

function retryPause(attempt: number): Promise<void> {
  const ms = Math.min(20, attempt) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

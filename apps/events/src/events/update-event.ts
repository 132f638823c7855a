import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  EventFieldsSchema,
  EventTopics,
  Inventory,
  parseOrThrow,
  type EventChanges,
  type EventFields,
  type EventView,
} from '@townhall/contracts';
import {
  CLOCK,
  OutboxWriter,
  queryRows,
  SERVICE_CLIENT,
  SETTINGS,
  type Clock,
  type ServiceClient,
} from '@townhall/platform/service';
import type { EventsSettings } from '../settings.js';
import { EventBook } from './event-book.js';
import { checkEventRules } from './event-rules.js';
import { EDITABLE_COLUMNS, editableValues, EVENT_COLUMNS, toEventView, type EventRow } from './event-row.js';
import { OneAtATime } from './one-at-a-time.js';

/** Concurrent edits of one event each win a round; bounded so a request never spins forever. */
const MAX_UPDATE_ATTEMPTS = 100;

/**
 * The host edits a scheduled event (PATCH); the merged event must pass every rule again. A change
 * of capacity or ticketing is decided first by ticketing, where the seats are (409
 * `event.capacity_below_sold` if fewer seats than are sold), stamped with the version this change
 * will be recorded as; then it is recorded here only if the event is still at the version it was
 * read at. If another change came first, the patch is merged again onto the newer event and
 * decided again. Once ticketing has decided, the patch stands even if the event was started
 * meanwhile: it was accepted first. No transaction is held while ticketing decides.
 * This process runs an event's PATCHes one at a time, so that a burst of them is decided once
 * each rather than retried against each other (one that waited SERVICE_TIMEOUT_MS for its turn
 * is refused with 503 `service.unavailable`); replicas still race, and the version decides.
 */
@Injectable()
export class UpdateEvent {
  /** This process's PATCHes, one at a time per event. */
  private readonly patches: OneAtATime;

  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: EventBook,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
    @Inject(SETTINGS) settings: EventsSettings,
  ) {
    this.patches = new OneAtATime({ maxWaitMs: settings.serviceTimeoutMs, tooLong: changingTooOften });
  }

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
      const current = await this.book.find(eventId);
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
          `UPDATE events.events SET (${EDITABLE_COLUMNS}) = ($3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14, $15),
             version = version + 1, updated_at = now(),
             -- a new start time is reminded of again (EventReminders)
             reminded_at = CASE WHEN starts_at = $6::timestamptz THEN reminded_at END
           WHERE id = $1 AND version = $2 RETURNING ${EVENT_COLUMNS}`,
          [eventId, current.version, ...editableValues(merged)],
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
}

function changingTooOften(): DomainError {
  return new DomainError('service.unavailable', 'The event is changing too often; retry shortly');
}

function retryPause(attempt: number): Promise<void> {
  const ms = Math.min(20, attempt) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

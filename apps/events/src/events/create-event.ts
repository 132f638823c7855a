import { Inject, Injectable } from '@nestjs/common';
import { EventTopics, type EventFields, type EventView } from '@townhall/contracts';
import { CLOCK, OutboxWriter, queryRows, SETTINGS, type Clock } from '@townhall/platform/service';
import type { EventsSettings } from '../settings.js';
import { checkEventRules } from './event-rules.js';
import { EDITABLE_COLUMNS, editableValues, EVENT_COLUMNS, toEventView, type EventRow } from './event-row.js';
import { requireRoomFor } from './host-limits.js';

/**
 * An agent schedules an event and becomes its host: every rule is checked on the whole event, it
 * starts in the future, and the host has room for one more (EVENTS_PER_HOST_LIMIT).
 */
@Injectable()
export class CreateEvent {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: EventsSettings,
  ) {}

  async create(hostId: string, fields: EventFields): Promise<EventView> {
    checkEventRules(fields, hostId, this.clock(), { requireFuture: true });
    return this.outbox.run(async (manager) => {
      await requireRoomFor(manager, 'events', hostId, this.settings.hostLimits.events);
      const [row] = await queryRows<EventRow>(
        manager,
        `INSERT INTO events.events (${EDITABLE_COLUMNS}, host_id)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14) RETURNING ${EVENT_COLUMNS}`,
        [...editableValues(fields), hostId],
      );
      const view = toEventView(row!);
      await this.outbox.announce(manager, [{ type: EventTopics.scheduled, subject: view.id, data: view }]);
      return view;
    });
  }
}

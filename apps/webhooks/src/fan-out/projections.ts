import {
  EventTopics,
  SeriesTopics,
  TicketTopics,
  type DomainEvent,
  type DomainEventOf,
} from '@townhall/contracts';
import type { EntityManager } from 'typeorm';

/** What some domain events tell the projections audience.ts reads. */
export interface Projections {
  /** event id -> its host */
  eventHosts: Map<string, string>;
  /** series id -> its host */
  seriesHosts: Map<string, string>;
  /** ticket id -> its event, holder, and whether it is still live after these events */
  tickets: Map<string, { eventId: string; holderId: string; live: boolean }>;
}

const EVENT_TYPES: ReadonlySet<string> = new Set(Object.values(EventTopics));

/** Every `townhall.event.*` type carries the event (its host included). */
function isEventChange(event: DomainEvent): event is DomainEventOf<'townhall.event.>'> {
  return EVENT_TYPES.has(event.type);
}

/**
 * What `events` (in stream order) tell the projections; an event that feeds none adds nothing.
 * An event's host and a series' are the first seen; a ticket is live only if every event of it
 * says so (a cancellation is final, whatever the order).
 */
export function projectionsOf(events: readonly DomainEvent[]): Projections {
  const projections: Projections = { eventHosts: new Map(), seriesHosts: new Map(), tickets: new Map() };
  for (const event of events) {
    if (isEventChange(event)) {
      const { id, hostId } = event.data;
      if (!projections.eventHosts.has(id)) projections.eventHosts.set(id, hostId);
    } else if (event.type === SeriesTopics.created) {
      const { id, hostId } = event.data;
      if (!projections.seriesHosts.has(id)) projections.seriesHosts.set(id, hostId);
    } else if (event.type === TicketTopics.issued || event.type === TicketTopics.cancelled) {
      const { id, eventId, holderId, status } = event.data;
      const live = event.type === TicketTopics.issued && status !== 'cancelled';
      const known = projections.tickets.get(id);
      projections.tickets.set(id, { eventId, holderId, live: live && (known?.live ?? true) });
    }
  }
  return projections;
}

/**
 * Applies them: at most one statement per projection, each an upsert that may be applied again
 * (a redelivery, an event passed over and later in a claimed batch) with the same result: an
 * event's host and a series' stay the first, and a cancelled ticket stays cancelled.
 */
export async function applyProjections(manager: EntityManager, projections: Projections): Promise<void> {
  const { eventHosts, seriesHosts, tickets } = projections;
  if (eventHosts.size > 0)
    await manager.query(
      `INSERT INTO webhooks.event_hosts (event_id, host_id)
       SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
      [[...eventHosts.keys()], [...eventHosts.values()]],
    );
  if (seriesHosts.size > 0)
    await manager.query(
      `INSERT INTO webhooks.series_hosts (series_id, host_id)
       SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
      [[...seriesHosts.keys()], [...seriesHosts.values()]],
    );
  if (tickets.size > 0) {
    const rows = [...tickets];
    await manager.query(
      `INSERT INTO webhooks.tickets AS t (ticket_id, event_id, holder_id, live)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[])
       ON CONFLICT (ticket_id) DO UPDATE SET live = t.live AND EXCLUDED.live`,
      [
        rows.map(([id]) => id),
        rows.map(([, ticket]) => ticket.eventId),
        rows.map(([, ticket]) => ticket.holderId),
        rows.map(([, ticket]) => ticket.live),
      ],
    );
  }
}

import { DomainError, type SignedMeta } from '@townhall/contracts';
import type { EventRow } from '../projection/event-row.js';
import type { EventsProjection } from '../projection/events-projection.js';

/**
 * The event, if the caller is its host; else 403 `role.forbidden` saying what only the host may
 * do (`what`: "manages its invites"). For what the host alone decides: invites and codes.
 */
export async function hostedEvent(
  events: EventsProjection,
  meta: SignedMeta,
  eventId: string,
  what: string,
): Promise<EventRow> {
  const event = await events.ensure(eventId, meta.caller, meta.requestId);
  if (event.host_id !== meta.caller) throw new DomainError('role.forbidden', `Only the event's host ${what}`);
  return event;
}

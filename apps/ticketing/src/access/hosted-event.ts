import { DomainError, type SignedMeta } from '@townhall/contracts';
import type { EventRow } from '../projection/event-row.js';
import type { EventsProjection } from '../projection/events-projection.js';

/** Who may do something to an event: its host alone, or its host and moderators. */
type Staff = 'host' | 'host or moderator';

/**
 * The event, if the caller is of its `staff`; else 403 `role.forbidden` saying what only they may
 * do (`what`: "manages its invites"). The host alone decides invites and codes; moderators share
 * requests to come and the report with the host. An unknown event is what EventsProjection.ensure
 * answers (404 `event.not_found`).
 */
async function eventOf(
  staff: Staff,
  events: EventsProjection,
  meta: SignedMeta,
  eventId: string,
  what: string,
): Promise<EventRow> {
  const event = await events.ensure(eventId, meta.caller, meta.requestId);
  const allowed =
    event.host_id === meta.caller ||
    (staff === 'host or moderator' && event.moderators.includes(meta.caller));
  if (!allowed)
    throw new DomainError(
      'role.forbidden',
      `Only the event's ${staff === 'host' ? 'host' : 'host or a moderator'} ${what}`,
    );
  return event;
}

/** The event, if the caller is its host. */
export const hostedEvent = (events: EventsProjection, meta: SignedMeta, eventId: string, what: string) =>
  eventOf('host', events, meta, eventId, what);

/** The event, if the caller runs it: its host or a moderator. */
export const runEvent = (events: EventsProjection, meta: SignedMeta, eventId: string, what: string) =>
  eventOf('host or moderator', events, meta, eventId, what);

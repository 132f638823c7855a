import type { DomainEvent } from '@townhall/contracts';

/** What the service knows from its projections, to decide who may see a domain event. */
export interface AudienceFacts {
  /** The host of an event (townhall.event.*), if the service has seen it. */
  hostOfEvent(eventId: string): Promise<string | undefined>;
  /** The host of a series (townhall.series.created). */
  hostOfSeries(seriesId: string): Promise<string | undefined>;
  /** The agents holding a live ticket for an event (townhall.ticket.*). */
  ticketHolders(eventId: string): Promise<string[]>;
}

/** Who may receive a domain event by webhook, and the event it is about (for `eventId` filters). */
export interface Audience {
  eventId: string | null;
  agents: string[];
}

const NOBODY: Audience = { eventId: null, agents: [] };

/**
 * Who may receive `event` (docs/product.md "Webhooks"), decided when it is fanned out:
 * - the host of an event: every domain event of that event, `staff` ones included (the only
 *   recipient of those);
 * - an agent: its own tickets (`townhall.ticket.*`, holderId), refunds (`townhall.refund.*`,
 *   holderId), waitlist entries (`townhall.waitlist.*`, agentId), invites (`townhall.invite.*`,
 *   agentId), requests to come (`townhall.request.*`, agentId) and ledger entries
 *   (`townhall.ledger.*`, agentId; nobody else, not even the event's host, sees another agent's
 *   ledger);
 * - a ticket holder: the lifecycle (`townhall.event.*`) of the events it holds a live ticket for;
 * - the host of a series: its series events;
 * - an agent: its own directory card's changes (`townhall.card.*`).
 * Nobody else, and nobody at all for an event whose `visibility` this code does not know.
 */
export async function audienceOf(event: DomainEvent, facts: AudienceFacts): Promise<Audience> {
  // Read by field name across types (an aggregate's types share their fields' names).
  const data: Readonly<Record<string, unknown>> = event.data;
  const aggregate = event.type.split('.')[1];
  let eventId: string | null;
  let host: string | undefined;
  let others: string[] = [];
  switch (aggregate) {
    case 'event': {
      eventId = text(data['id']) ?? event.subject;
      host = text(data['hostId']);
      others = await facts.ticketHolders(eventId);
      break;
    }
    case 'series': {
      const seriesId = text(data['seriesId']) ?? text(data['id']) ?? event.subject;
      return audience(null, text(data['hostId']) ?? (await facts.hostOfSeries(seriesId)), [], event);
    }
    case 'ticket': {
      eventId = text(data['eventId']) ?? null;
      host = eventId ? await facts.hostOfEvent(eventId) : undefined;
      others = list(text(data['holderId']));
      break;
    }
    case 'refund': {
      eventId = text(data['eventId']) ?? null;
      host = text(data['hostId']) ?? (eventId ? await facts.hostOfEvent(eventId) : undefined);
      others = list(text(data['holderId']));
      break;
    }
    case 'waitlist':
    case 'invite':
    case 'request': {
      eventId = text(data['eventId']) ?? null;
      host = eventId ? await facts.hostOfEvent(eventId) : undefined;
      others = list(text(data['agentId']));
      break;
    }
    case 'ledger':
      // Money is private to its agent: the entry's own agent only.
      return audience(text(data['eventId']) ?? null, undefined, list(text(data['agentId'])), event);
    case 'card':
      // An agent's directory card: its own changes, to itself (anyone may read the card itself).
      return audience(null, undefined, list(text(data['agentId']) ?? event.subject), event);
    default: {
      // Everything else happens in one event (stage, questions, polls, moderation, recordings):
      // for its host.
      eventId = text(data['eventId']) ?? event.subject;
      host = await facts.hostOfEvent(eventId);
    }
  }
  return audience(eventId, host, others, event);
}

function audience(
  eventId: string | null,
  host: string | undefined,
  others: string[],
  event: DomainEvent,
): Audience {
  if (event.visibility === undefined) return { eventId, agents: [...new Set([...list(host), ...others])] };
  if (event.visibility === 'staff') return { eventId, agents: list(host) };
  return NOBODY;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function list(value: string | undefined): string[] {
  return value === undefined ? [] : [value];
}

import { Inject, Injectable } from '@nestjs/common';
import {
  Attendance,
  DomainError,
  Events,
  type EventRole,
  type EventStatus,
  type EventView,
  type MessageMeta,
  type SignedMeta,
} from '@townhall/contracts';
import type { ServiceClient } from '@townhall/platform/service';
import { SERVICES } from '../tokens.js';

/** An agent in one event, as the events service sees it right now. */
export interface Participant {
  eventId: string;
  agentId: string;
  status: EventStatus;
  hostId: string;
  role: EventRole | null;
}

/**
 * Who may do what in an event (docs/product.md "Roles"). Every answer comes from the service that
 * owns the fact, over NATS, and is asked before any transaction opens (docs/architecture.md "The shape": never
 * hold a transaction across a message to another service): roles and status from events,
 * tickets from ticketing.
 */
@Injectable()
export class Participants {
  constructor(@Inject(SERVICES) private readonly services: ServiceClient) {}

  /** The caller's role and the event's status; 404 event.not_found for an unknown event. */
  async of(eventId: string, meta: SignedMeta): Promise<Participant> {
    const access = await this.services.send(Events.access, { eventId, agentId: meta.caller }, meta);
    return {
      eventId: access.eventId,
      agentId: meta.caller,
      status: access.status,
      hostId: access.hostId,
      role: access.role,
    };
  }

  /** The event itself, for public reads that must tell an unknown event from an empty list. */
  event(eventId: string, meta: MessageMeta): Promise<EventView> {
    return this.services.send(Events.get, { eventId }, meta);
  }

  /** Refuses (403) anyone who is neither appointed (host, moderator, speaker) nor holding a live ticket. */
  async requireAttendee(participant: Participant, meta: SignedMeta, doing: string): Promise<void> {
    if (participant.role !== null) return; // appointed roles count as attendees without a ticket
    const attendance = await this.services.send(
      Attendance.get,
      { eventId: participant.eventId, agentId: participant.agentId },
      meta,
    );
    if (!attendance.holdsTicket)
      throw new DomainError('role.forbidden', `Only attendees (ticket holders) can ${doing}`);
  }
}

/** Refuses (403) a participant whose role is not one of `roles`. */
export function requireRole(participant: Participant, roles: readonly EventRole[], doing: string): void {
  if (participant.role === null || !roles.includes(participant.role))
    throw new DomainError('role.forbidden', `Only a ${roles.join(' or ')} of this event can ${doing}`);
}

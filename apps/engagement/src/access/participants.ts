import { Inject, Injectable } from '@nestjs/common';
import {
  Attendance,
  DomainError,
  Events,
  isUuid,
  type EventRole,
  type EventStatus,
  type EventView,
  type MessageMeta,
  type Moderation,
  type SignedMeta,
} from '@townhall/contracts';
import { counter, preparedStatement, SERVICE_CLIENT, type ServiceClient } from '@townhall/platform/service';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { isBlockedCall } from '../db/functions.js';
import { recordEventStanding } from './event-standing-row.js';

/** An agent in one event: its role, whether it attends, and the event's status. */
export interface Participant {
  eventId: string;
  agentId: string;
  status: EventStatus;
  hostId: string;
  role: EventRole | null;
  /** Holds a live ticket, or has an appointed role (which counts as attendance). */
  attendee: boolean;
  /** A moderator or the host blocked this agent in this event (engagement.blocks). */
  blocked: boolean;
  moderation: Moderation;
}

/**
 * Where an authorization was decided: the standing this process read last (checked by the write's
 * own statement), the projections, or the owners asked over NATS.
 */
const authorizations = counter(
  'townhall_engagement_authorizations_total',
  'Authorizations of writes in events, by where they were decided (remembered, projection, owners)',
  ['source'],
);

/**
 * The standings remembered for writes that check theirs (authorizeChecked): at most this many
 * (event, agent) pairs, about 300 bytes each. An entry is only a guess of the standing: the write's
 * statement compares it with the standing then, so an old one costs a read, never a wrong decision.
 */
const REMEMBERED_STANDINGS = 50_000;

/** What a write checked against its standing answers when that standing is no longer the standing now. */
export const STALE_STANDING = Symbol('stale standing');

interface StandingRow {
  status: EventStatus;
  host_id: string;
  role: EventRole | null;
  holds_ticket: boolean;
  blocked: boolean;
  question_moderation: Moderation['questions'];
  report_threshold: number;
  /** The row's text (engagement.standing's `s::text`): what a checked write compares. */
  standing: string;
}

/** A standing as the projection gave it: the participant, and the row's text. */
interface Standing {
  participant: Participant;
  text: string;
}

/**
 * Who may do what in an event (docs/product.md "Roles"), without a message to another service
 * on the hot path. Engagement projects the facts it needs from the owners' domain events:
 * roles and status from townhall.event.* (engagement.events), tickets from townhall.ticket.*
 * (engagement.attendance), each applied exactly once and in version order. A rule is run on
 * that projection first; what it allows is allowed. What it refuses, and an event it has not
 * seen yet, is decided again by the owners over NATS (events for roles and status, ticketing
 * for tickets), before any transaction opens. So an agent is never refused because a domain
 * event is still on its way (a new moderator, a ticket just bought), and once the event that
 * takes a right away (a role removed, a ticket cancelled) is applied, the very next request is
 * refused. In between, the projection may still allow what was just taken away: the window is
 * the time the domain event takes to arrive (milliseconds; the outbox relay and JetStream).
 */
@Injectable()
export class Participants {
  private readonly standing: (values: unknown[]) => Promise<StandingRow[]>;
  private readonly isBlocked: (args: { eventId: string; agentId: string }) => Promise<boolean>;
  /** The last standing read per (event, agent), for checked writes. */
  private readonly remembered = new LRUCache<string, Standing>({ max: REMEMBERED_STANDINGS });
  /** The standings being read for checked writes, per (event, agent). */
  private readonly reading = new Map<string, Promise<Standing | undefined>>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
  ) {
    this.standing = preparedStatement<StandingRow>(
      dataSource,
      'engagement.standing',
      'SELECT s.*, s::text AS standing FROM engagement.standing(p_event => $1, p_agent => $2) AS s',
    );
    this.isBlocked = isBlockedCall(dataSource);
  }

  /**
   * Runs `rule` (which throws a DomainError to refuse, and must not write) on the caller's
   * standing in the event and returns its result: from the projection if it allows, else as the
   * owners see it right now. 404 event.not_found for an unknown event.
   */
  async authorize<T>(
    eventId: string,
    meta: SignedMeta,
    rule: (participant: Participant) => T | Promise<T>,
  ): Promise<T> {
    return this.decide(eventId, meta, rule, (await this.projected(eventId, meta.caller))?.participant);
  }

  /** `rule` on the projection's standing (`seen`), and what it refuses on the owners' (authorize). */
  private async decide<T>(
    eventId: string,
    meta: SignedMeta,
    rule: (participant: Participant) => T | Promise<T>,
    seen: Participant | undefined,
  ): Promise<T> {
    if (seen) {
      try {
        const allowed = await rule(seen);
        authorizations.inc({ source: 'projection' });
        return allowed;
      } catch (error) {
        // A block is engagement's own fact, not a projection: the owners would say the same.
        if (!(error instanceof DomainError) || error.code === 'role.blocked') throw error;
      }
    }
    authorizations.inc({ source: 'owners' });
    return rule(await this.fromOwners(eventId, meta, seen === undefined));
  }

  /**
   * For a write whose statement checks the standing it was authorized on (engagement.standing's
   * text; the statement writes nothing and answers STALE_STANDING when the standing now differs):
   * `rule` runs on the standing this process read last for the caller in the event, or on the one
   * being read for another such write of the caller's at this moment, and `write` gets it, with
   * no statement spent on reading it. Without one, or when the rule refuses on it or the write finds
   * it stale, the standing is read and decided as `authorize` does, and `write` runs with null
   * (nothing to compare: the read and the write are as close as ever).
   */
  async authorizeChecked<T, W>(
    eventId: string,
    meta: SignedMeta,
    rule: (participant: Participant) => T | Promise<T>,
    write: (allowed: T, standing: string | null) => Promise<W | typeof STALE_STANDING>,
  ): Promise<W> {
    const key = `${eventId}\n${meta.caller}`;
    // Looked up without yielding, so that the first of several writes at once starts the read the
    // others then wait for.
    const pending = this.remembered.has(key) ? undefined : this.reading.get(key);
    const known = this.remembered.get(key) ?? (pending && (await pending));
    if (known) {
      let allowed: { value: T } | undefined;
      try {
        allowed = { value: await rule(known.participant) };
      } catch {
        // A refusal is never decided on a remembered standing: the standing is read below.
      }
      if (allowed) {
        const written = await write(allowed.value, known.text);
        if (written !== STALE_STANDING) {
          authorizations.inc({ source: 'remembered' });
          return written;
        }
      }
      this.remembered.delete(key);
    }
    // Other checked writes of the caller's in this event that arrive meanwhile use this read.
    const read = this.projected(eventId, meta.caller);
    this.reading.set(key, read);
    const seen = await read.finally(() => {
      if (this.reading.get(key) === read) this.reading.delete(key);
    });
    const written = await write(await this.decide(eventId, meta, rule, seen?.participant), null);
    if (written === STALE_STANDING) throw new Error('a write with no standing to compare answered stale');
    return written;
  }

  /** The event itself, for public reads that must tell an unknown event from an empty list. */
  event(eventId: string, meta: MessageMeta): Promise<EventView> {
    return this.services.send(Events.get, { eventId }, meta);
  }

  private async projected(eventId: string, agentId: string): Promise<Standing | undefined> {
    if (!isUuid(eventId)) return undefined;
    const [row] = await this.standing([eventId, agentId]);
    if (!row) return undefined;
    const participant: Participant = {
      eventId,
      agentId,
      status: row.status,
      hostId: row.host_id,
      role: row.role,
      attendee: row.role !== null || row.holds_ticket,
      blocked: row.blocked,
      moderation: { questions: row.question_moderation, reportThreshold: row.report_threshold },
    };
    const standing = { participant, text: row.standing };
    this.remembered.set(`${eventId}\n${agentId}`, standing);
    return standing;
  }

  /** Asks the owners; an event the projection had not seen is recorded (a newer version only). */
  private async fromOwners(eventId: string, meta: SignedMeta, unseen: boolean): Promise<Participant> {
    const access = await this.services.send(Events.access, { eventId, agentId: meta.caller }, meta);
    if (unseen) await recordEventStanding(this.dataSource.manager, { ...access, id: access.eventId });
    const attendee =
      access.role !== null ||
      (await this.services.send(Attendance.get, { eventId: access.eventId, agentId: meta.caller }, meta))
        .holdsTicket;
    // Blocks are engagement's own: the table itself, not a projection, answers.
    const blocked = await this.isBlocked({ eventId: access.eventId, agentId: meta.caller });
    return {
      eventId: access.eventId,
      agentId: meta.caller,
      status: access.status,
      hostId: access.hostId,
      role: access.role,
      attendee,
      blocked,
      moderation: access.moderation,
    };
  }
}

/** Refuses (403) anyone who is neither appointed (host, moderator, speaker) nor holding a live ticket. */
export function requireAttendee(participant: Participant, doing: string): void {
  if (!participant.attendee)
    throw new DomainError('role.forbidden', `Only attendees (ticket holders) can ${doing}`);
}

/** Refuses (403 role.blocked) an agent a moderator or the host blocked in this event. */
export function requireNotBlocked(participant: Participant): void {
  if (participant.blocked) throw blockedProblem();
}

/** 403 role.blocked: what a blocked agent is answered, whichever check (engagement.is_blocked) saw it. */
export function blockedProblem(): DomainError {
  return new DomainError('role.blocked', 'A moderator of this event has blocked you from taking part');
}

/** The event's staff: its host and its moderators. */
export function isStaff(participant: Participant): boolean {
  return participant.role === 'host' || participant.role === 'moderator';
}

/** Refuses (403) a participant whose role is not one of `roles`. */
export function requireRole(participant: Participant, roles: readonly EventRole[], doing: string): void {
  if (participant.role === null || !roles.includes(participant.role))
    throw new DomainError('role.forbidden', `Only a ${roles.join(' or ')} of this event can ${doing}`);
}

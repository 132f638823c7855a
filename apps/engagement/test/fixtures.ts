// What engagement's specs of the service tier share (libs/testing/src/service.ts): the service
// started alone, and stand-ins for the events and ticketing services. The stand-ins answer
// Events.access and Attendance.get from what they know (their truth, whatever engagement was
// told) and count every request they receive; domain events reach engagement's consumers only
// when a test delivers them. So a test can hold a domain event back (the gap between a change at
// its owner and its arrival here) and see what engagement decides meanwhile.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import {
  DEFAULT_MODERATION,
  DEFAULT_OFFER_MINUTES,
  Attendance,
  DomainError,
  EventTopics,
  Events,
  Questions,
  TicketTopics,
  type CloudEvent,
  type EventStatus,
  type EventView,
} from '@townhall/contracts';
import { anIssuedTicketView } from '@townhall/testing';
import { ServiceHarness } from '@townhall/testing/service';
import { engagement as engagementService } from '../src/service.js';

const HOUR = 3_600_000;

/** What the stand-in events service knows of an event, and the holders ticketing knows. */
interface Truth {
  view: EventView;
  holders: Set<string>;
}

/**
 * The engagement service and the world around it. `start` runs the service; the helpers (plain
 * functions, to destructure) act on it.
 */
export class EngagementFixtures {
  /** The host of every event the tests create. */
  readonly host = generateAgentKey().agentId;
  /** A moderator of every event the tests create. */
  readonly moderator = generateAgentKey().agentId;
  /** The requests engagement sent the stand-ins: an authorization decided by the owners. */
  readonly asked = { access: 0, attendance: 0 };
  private readonly truth = new Map<string, Truth>();
  private service: ServiceHarness | undefined;

  /** Starts the service (`env` on top of the harness's) with the stand-in events and ticketing services. */
  async start(env: Record<string, string> = {}): Promise<ServiceHarness> {
    const engagement = await ServiceHarness.start(engagementService, env);
    this.service = engagement;
    engagement.answer(Events.access, ({ eventId, agentId }) => {
      this.asked.access += 1;
      const known = this.truth.get(eventId)?.view;
      if (!known) throw new DomainError('event.not_found', `No event ${eventId}`);
      const role =
        agentId === known.hostId
          ? ('host' as const)
          : known.moderators.includes(agentId)
            ? ('moderator' as const)
            : known.speakers.includes(agentId)
              ? ('speaker' as const)
              : null;
      return {
        eventId: known.id,
        status: known.status,
        hostId: known.hostId,
        role,
        moderation: known.moderation,
        offerMinutes: known.offerMinutes,
        access: known.access,
        startsAt: known.startsAt,
        endsAt: known.endsAt,
        capacity: known.capacity,
        ticketing: known.ticketing,
        moderators: known.moderators,
        speakers: known.speakers,
        seriesId: known.seriesId,
        version: known.version,
        updatedAt: known.updatedAt,
      };
    });
    engagement.answer(Attendance.get, ({ eventId, agentId }) => {
      this.asked.attendance += 1;
      return { eventId, agentId, holdsTicket: this.truth.get(eventId)?.holders.has(agentId) ?? false };
    });
    // The events service's answer for an unknown event (public reads of one), as it would say.
    engagement.answer(Events.get, ({ eventId }) => {
      const known = this.truth.get(eventId)?.view;
      if (!known) throw new DomainError('event.not_found', `No event ${eventId}`);
      return known;
    });
    return engagement;
  }

  /**
   * Runs the service for the enclosing describe block: started before its tests (`env` as in
   * `start`), stopped after them. Returns the fixtures, to destructure.
   */
  forSpec(env: Record<string, string> = {}): this {
    beforeAll(async () => {
      await this.start(env);
    });
    afterAll(async () => {
      await this.service?.stop();
    });
    return this;
  }

  /** The running service, for the tests to send to, deliver to and query. */
  readonly engagement = (): ServiceHarness => this.harness();

  readonly cloudEvent = (type: string, subject: string, data: unknown): CloudEvent => ({
    specversion: '1.0',
    id: randomUUID(),
    source: 'test',
    type,
    time: new Date().toISOString(),
    subject,
    datacontenttype: 'application/json',
    data,
  });

  /** The event as the stand-in events service knows it now. */
  readonly known = (eventId: string): EventView => this.truth.get(eventId)!.view;

  /** A change at the events service: its truth now, and the domain event announcing it (not yet delivered). */
  readonly change = (eventId: string, type: string, edit: Partial<EventView>): CloudEvent => {
    const known = this.truth.get(eventId)!;
    known.view = { ...known.view, ...edit, version: known.view.version + 1 };
    return this.cloudEvent(type, eventId, known.view);
  };

  /** A live event engagement has been told of, with `moderator` appointed (and `edit` applied). */
  readonly liveEvent = async (
    status: EventStatus = 'live',
    edit: Partial<EventView> = {},
  ): Promise<string> => {
    const id = randomUUID();
    const startsAt = new Date(Date.now() - HOUR / 2).toISOString();
    const view: EventView = {
      id,
      title: 'AMA',
      description: '',
      agenda: [],
      startsAt,
      endsAt: new Date(Date.now() + HOUR).toISOString(),
      timezone: 'UTC',
      hostId: this.host,
      moderators: [this.moderator],
      speakers: [],
      capacity: 100,
      ticketing: { mode: 'free' },
      moderation: DEFAULT_MODERATION,
      offerMinutes: DEFAULT_OFFER_MINUTES,
      access: 'open',
      status,
      seriesId: null,
      counts: { ticketsSold: {}, questions: 0, polls: 0 },
      version: 1,
      createdAt: startsAt,
      updatedAt: startsAt,
      startedAt: status === 'live' ? startsAt : null,
      endedAt: null,
      cancelledAt: null,
      recordingPublishedAt: null,
      ...edit,
    };
    this.truth.set(id, { view, holders: new Set() });
    await this.harness().deliver(this.cloudEvent(EventTopics.scheduled, id, view));
    return id;
  };

  /** A ticket at ticketing, and its domain events (issued now; cancelled when `cancel` is called). */
  readonly ticket = (eventId: string, holder: string) => {
    this.truth.get(eventId)!.holders.add(holder);
    const view = anIssuedTicketView(eventId, holder);
    return {
      issued: this.cloudEvent(TicketTopics.issued, eventId, view),
      cancel: () => {
        this.truth.get(eventId)!.holders.delete(holder);
        const cancelledAt = new Date().toISOString();
        return this.cloudEvent(TicketTopics.cancelled, eventId, {
          ...view,
          status: 'cancelled',
          cancelledAt,
        });
      },
    };
  };

  /** A new agent holding a ticket to the event, its issue delivered. */
  readonly attendee = async (eventId: string): Promise<string> => {
    const agent = generateAgentKey().agentId;
    await this.harness().deliver(this.ticket(eventId, agent).issued);
    return agent;
  };

  readonly ask = (eventId: string, agent: string, body = 'Why?') =>
    this.harness().send(Questions.submit, { eventId, body }, agent);

  private harness(): ServiceHarness {
    if (!this.service) throw new Error('EngagementFixtures.start() first');
    return this.service;
  }
}

// What the ticketing specs of the service tier share (libs/testing/src/service.ts): the service
// started alone, a stand-in events service answering Events.access from the events it was told
// of, and the agents, events and payments the tests are written in.
import { randomUUID } from 'node:crypto';
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import {
  DEFAULT_MODERATION,
  DEFAULT_OFFER_MINUTES,
  DomainError,
  EventTopics,
  Events,
  Ledger,
  Tickets,
  type AccessMode,
  type CloudEvent,
  type EventAccess,
  type EventView,
  type RsvpReply,
  type TicketReply,
  type Ticketing,
} from '@townhall/contracts';
import { anEventView } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { encodePaymentHeader, signLedgerPayment, type PaymentRequirements } from '@townhall/x402';
import { ticketing as ticketingService } from '../src/service.js';

const HOUR = 3_600_000;

/** A single-price ticketing in USDC. */
export const paid = (price: string): Ticketing => ({ mode: 'single', price, asset: 'USDC' });

/**
 * The ticketing service and the world around it. `start` runs the service; the helpers (plain
 * functions, to destructure) act on it.
 */
export class TicketingFixtures {
  /** The host of every event the tests create. */
  readonly host = generateAgentKey();
  /** What the stand-in events service knows. */
  private readonly known = new Map<string, EventAccess>();
  private service: ServiceHarness | undefined;

  /** Starts the service (`env` on top of the harness's) with the stand-in events service. */
  async start(env: Record<string, string> = {}): Promise<ServiceHarness> {
    this.service = await ServiceHarness.start(ticketingService, env);
    this.service.answer(Events.access, ({ eventId, agentId }) => {
      const event = this.known.get(eventId);
      if (!event) throw new DomainError('event.not_found', `No event ${eventId}`);
      return { ...event, role: agentId === event.hostId ? ('host' as const) : null };
    });
    return this.service;
  }

  /** A scheduled event a day from now that the stand-in events service knows. */
  readonly anEvent = (
    capacity: number,
    ticketing: Ticketing = { mode: 'free' },
    offerMinutes = DEFAULT_OFFER_MINUTES,
    access: AccessMode = 'open',
  ): EventAccess => {
    const startsAt = new Date(Date.now() + 24 * HOUR);
    const event: EventAccess = {
      eventId: randomUUID(),
      status: 'scheduled',
      hostId: this.host.agentId,
      role: null,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
      capacity,
      ticketing,
      moderation: DEFAULT_MODERATION,
      offerMinutes,
      access,
      moderators: [],
      speakers: [],
      seriesId: null,
      version: 1,
      updatedAt: new Date().toISOString(),
    };
    this.known.set(event.eventId, event);
    return event;
  };

  /** An RSVP that answers with a ticket (one answered with a request fails the test). */
  readonly rsvp = async (agent: AgentKey, eventId: string, payment?: string): Promise<TicketReply> =>
    ticketOf(await this.answer(agent, eventId, payment));

  /** An RSVP, as ticketing answers it: a ticket, or the request of an agent not approved yet. */
  readonly answer = (agent: AgentKey, eventId: string, payment?: string, tierId?: string) =>
    this.harness().send(
      Tickets.rsvp,
      { eventId, ...(payment ? { payment } : {}), ...(tierId ? { tierId } : {}) },
      agent.agentId,
    );

  /** A new agent with `amount` USDC from the faucet. */
  readonly funded = async (amount: string): Promise<AgentKey> => {
    const agent = generateAgentKey();
    await this.harness().send(Ledger.faucet, { amount }, agent.agentId);
    return agent;
  };

  readonly balanceOf = async (agent: AgentKey): Promise<string> =>
    (await this.harness().send(Ledger.balance, {}, agent.agentId)).balances.find((b) => b.asset === 'USDC')
      ?.amount ?? '0';

  /** What an RSVP without payment is answered: 402, and the requirements of the first tier. */
  readonly offerOf = async (agent: AgentKey, eventId: string): Promise<PaymentRequirements> => {
    const error = await refusalOf(this.rsvp(agent, eventId));
    expect(error.code).toBe('payment.required');
    return (error.extensions?.['x402'] as { accepts: PaymentRequirements[] }).accepts[0]!;
  };

  /** A ledger payment of `offer` signed by `agent`, as the X-PAYMENT header. */
  readonly payment = (agent: AgentKey, offer: PaymentRequirements): string =>
    encodePaymentHeader(signLedgerPayment(agent, offer));

  /** townhall.event.scheduled of `event`, as the events service announces it. */
  readonly scheduled = (event: EventAccess): CloudEvent =>
    announcement(EventTopics.scheduled, event.eventId, viewOf(event));

  /** townhall.event.updated to `event` (a later version), as the events service announces it; its stand-in answers with it from now on. */
  readonly updated = (event: EventAccess): CloudEvent => {
    this.known.set(event.eventId, event);
    return announcement(EventTopics.updated, event.eventId, viewOf(event));
  };

  /** townhall.event.cancelled of `event`, as the events service announces it. */
  readonly cancelled = (event: EventAccess): CloudEvent =>
    announcement(EventTopics.cancelled, event.eventId, {
      ...viewOf(event),
      status: 'cancelled',
      version: event.version + 1,
    });

  private harness(): ServiceHarness {
    if (!this.service) throw new Error('TicketingFixtures.start() first');
    return this.service;
  }
}

/** The ticket an RSVP answered with; a request instead fails the test. */
export function ticketOf(reply: RsvpReply): TicketReply {
  if ('request' in reply)
    throw new Error(`expected a ticket, got a request: ${JSON.stringify(reply.request)}`);
  return reply;
}

/** A domain event of `type` about `subject`, as the events service announces it. */
export const announcement = (type: string, subject: string, data: unknown): CloudEvent => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'townhall/events',
  type,
  subject,
  time: new Date().toISOString(),
  datacontenttype: 'application/json',
  data,
});

/** The EventView a domain event carries, with what the stand-in knows of the event. */
function viewOf(event: EventAccess): EventView {
  return anEventView({
    id: event.eventId,
    hostId: event.hostId,
    moderators: event.moderators,
    status: event.status,
    seriesId: event.seriesId,
    startsAt: event.startsAt,
    endsAt: event.endsAt,
    capacity: event.capacity,
    ticketing: event.ticketing,
    offerMinutes: event.offerMinutes,
    access: event.access,
    version: event.version,
    updatedAt: event.updatedAt,
  });
}

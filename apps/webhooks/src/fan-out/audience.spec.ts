import type { DomainEvent } from '@townhall/contracts';
import { audienceOf, type AudienceFacts } from './audience.js';

const HOST = 'host-agent';
const OTHER_HOST = 'other-host';
const HOLDER = 'holder-agent';
const STRANGER = 'stranger-agent';
const EVENT = '11111111-1111-4111-8111-111111111111';
const OTHER_EVENT = '22222222-2222-4222-8222-222222222222';
const SERIES = '33333333-3333-4333-8333-333333333333';

const facts: AudienceFacts = {
  hostOfEvent: async (eventId) => ({ [EVENT]: HOST, [OTHER_EVENT]: OTHER_HOST })[eventId],
  hostOfSeries: async (seriesId) => (seriesId === SERIES ? HOST : undefined),
  ticketHolders: async (eventId) => (eventId === EVENT ? [HOLDER] : []),
};

// Only the fields audienceOf reads: what the catalog's schemas add is no matter here.
function event(type: string, subject: string, data: object, visibility?: 'staff'): DomainEvent {
  return {
    specversion: '1.0',
    id: crypto.randomUUID(),
    source: 'townhall/test',
    type,
    time: new Date().toISOString(),
    subject,
    datacontenttype: 'application/json',
    ...(visibility ? { visibility } : {}),
    data,
  } as DomainEvent;
}

const audience = (e: DomainEvent) => audienceOf(e, facts);

describe('audienceOf: who may receive a domain event', () => {
  it('the lifecycle of an event and its reminder: its host and the holders of a live ticket', async () => {
    const types = [
      'townhall.event.scheduled',
      'townhall.event.started',
      'townhall.event.cancelled',
      'townhall.event.starting_soon',
    ];
    for (const type of types)
      expect(await audience(event(type, EVENT, { id: EVENT, hostId: HOST }))).toEqual({
        eventId: EVENT,
        agents: [HOST, HOLDER],
      });
    expect(
      await audience(event('townhall.event.updated', OTHER_EVENT, { id: OTHER_EVENT, hostId: OTHER_HOST })),
    ).toEqual({
      eventId: OTHER_EVENT,
      agents: [OTHER_HOST],
    });
  });

  it('everything else about an event: its host only, staff events included', async () => {
    const question = { id: 'q', eventId: EVENT, authorId: HOLDER };
    expect(await audience(event('townhall.question.submitted', EVENT, question))).toEqual({
      eventId: EVENT,
      agents: [HOST],
    });
    expect(await audience(event('townhall.question.submitted', EVENT, question, 'staff'))).toEqual({
      eventId: EVENT,
      agents: [HOST],
    });
    // No eventId in the data (a report): the subject names the event.
    expect(
      await audience(event('townhall.question.reported', EVENT, { question, reporterId: HOLDER }, 'staff')),
    ).toEqual({ eventId: EVENT, agents: [HOST] });
    expect(
      (await audience(event('townhall.poll.opened', OTHER_EVENT, { eventId: OTHER_EVENT }))).agents,
    ).toEqual([OTHER_HOST]);
  });

  it('a ticket: its holder and the event host; a waitlist entry: its agent and the host', async () => {
    const ticket = { id: 't', eventId: EVENT, holderId: HOLDER, status: 'active' };
    expect(await audience(event('townhall.ticket.issued', EVENT, ticket))).toEqual({
      eventId: EVENT,
      agents: [HOST, HOLDER],
    });
    const entry = { id: 'w', eventId: OTHER_EVENT, agentId: STRANGER, status: 'waiting' };
    expect(await audience(event('townhall.waitlist.joined', OTHER_EVENT, entry))).toEqual({
      eventId: OTHER_EVENT,
      agents: [OTHER_HOST, STRANGER],
    });
  });

  it('an invite: the agent invited and the event host, nobody else', async () => {
    const invite = {
      eventId: EVENT,
      agentId: STRANGER,
      invitedBy: HOST,
      invitedAt: new Date().toISOString(),
    };
    // Not the event's ticket holders (HOLDER), who get its lifecycle only.
    expect(await audience(event('townhall.invite.added', EVENT, invite))).toEqual({
      eventId: EVENT,
      agents: [HOST, STRANGER],
    });
  });

  it('a request to come: the agent who asked and the event host, nobody else', async () => {
    const request = {
      eventId: EVENT,
      agentId: STRANGER,
      status: 'requested',
      tierId: null,
      holdExpiresAt: null,
      requestedAt: new Date().toISOString(),
      decidedAt: null,
      decidedBy: null,
    };
    // Not the event's ticket holders (HOLDER), who get its lifecycle only.
    expect(await audience(event('townhall.request.requested', EVENT, request))).toEqual({
      eventId: EVENT,
      agents: [HOST, STRANGER],
    });
    // A decision goes to the same two, one a moderator made too: the fan-out knows an event's host,
    // not its moderators (who follow the requests on their signed live stream).
    const decided = { ...request, decidedAt: new Date().toISOString(), decidedBy: 'moderator-agent' };
    for (const [type, status] of [
      ['townhall.request.approved', 'approved'],
      ['townhall.request.declined', 'declined'],
    ] as const)
      expect(await audience(event(type, EVENT, { ...decided, status }))).toEqual({
        eventId: EVENT,
        agents: [HOST, STRANGER],
      });
  });

  it('a refund of a ticket paid on chain: its holder and the host that owes it', async () => {
    const refund = { id: 'r', eventId: EVENT, hostId: HOST, holderId: HOLDER, status: 'owed' };
    expect(await audience(event('townhall.refund.owed', EVENT, refund))).toEqual({
      eventId: EVENT,
      agents: [HOST, HOLDER],
    });
    expect(
      (await audience(event('townhall.refund.paid', EVENT, { ...refund, status: 'paid' }))).agents,
    ).not.toContain(STRANGER);
  });

  it('a ledger entry: its own agent only, not the host of the event it paid for', async () => {
    const entry = { id: 'l', agentId: HOLDER, eventId: EVENT, amount: '-100' };
    expect(await audience(event('townhall.ledger.entry_recorded', HOLDER, entry))).toEqual({
      eventId: EVENT,
      agents: [HOLDER],
    });
  });

  it('a directory card: its own agent only', async () => {
    const card = {
      agentId: HOLDER,
      handle: 'holder',
      displayName: null,
      bio: null,
      avatarUrl: null,
      links: [],
    };
    expect(await audience(event('townhall.card.updated', HOLDER, card))).toEqual({
      eventId: null,
      agents: [HOLDER],
    });
  });

  it('a series: its host', async () => {
    expect(await audience(event('townhall.series.created', SERIES, { id: SERIES, hostId: HOST }))).toEqual({
      eventId: null,
      agents: [HOST],
    });
    expect(
      (await audience(event('townhall.series.followed', SERIES, { seriesId: SERIES, agentId: STRANGER })))
        .agents,
    ).toEqual([HOST]);
  });

  it('staff events reach the host alone, and an unknown visibility nobody', async () => {
    const ticket = { id: 't', eventId: EVENT, holderId: HOLDER };
    expect((await audience(event('townhall.ticket.issued', EVENT, ticket, 'staff'))).agents).toEqual([HOST]);
    const secret = {
      ...event('townhall.event.updated', EVENT, { id: EVENT, hostId: HOST }),
      visibility: 'board',
    };
    expect((await audience(secret as DomainEvent)).agents).toEqual([]);
  });

  // Data its type's schema refuses never gets here: the consumer drops it (domain-event-reader.spec.ts).
  it('nobody for an event the service has not seen', async () => {
    const unknown = '44444444-4444-4444-8444-444444444444';
    expect((await audience(event('townhall.stage.posted', unknown, { eventId: unknown }))).agents).toEqual(
      [],
    );
  });
});

// Events that need approval in the ticketing service on its own (the service tier:
// libs/testing/src/service.ts): a stand-in answers Events.access, domain events are delivered to
// ticketing's consumers directly. docs/product.md "Who may come".
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { Invites, Requests, RequestTopics, Tickets, Waitlist, WaitlistTopics } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { paid, TicketingFixtures } from './fixtures.js';

describe('ticketing: requests to come', () => {
  const fixtures = new TicketingFixtures();
  const { host, rsvp, answer, funded, offerOf, payment, balanceOf } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true', WAITLIST_SWEEP_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    const off = ticketing?.offCatalog().filter((event) => !event.type.startsWith('townhall.event.'));
    await ticketing?.stop();
    expect(off).toEqual([]);
  });

  /** The agent's RSVP, which must answer with its request. */
  const ask = async (agent: AgentKey, eventId: string, tierId?: string) => {
    const reply = await answer(agent, eventId, undefined, tierId);
    if (!('request' in reply)) throw new Error(`expected a request, got ${JSON.stringify(reply)}`);
    return reply.request;
  };
  const approve = (eventId: string, agent: AgentKey, by = host.agentId) =>
    ticketing.send(Requests.approve, { eventId, agentId: agent.agentId }, by);
  const decline = (eventId: string, agent: AgentKey, by = host.agentId) =>
    ticketing.send(Requests.decline, { eventId, agentId: agent.agentId }, by);
  const published = (type: string, eventId: string) =>
    ticketing.published.filter((event) => event.type === type && event.subject === eventId);
  async function seats(eventId: string) {
    const [row] = await ticketing.query<{ sold: number; tickets: number; holds: number }>(
      `SELECT e.sold,
         (SELECT count(*)::int FROM ticketing.tickets t WHERE t.event_id = e.event_id AND t.status <> 'cancelled') AS tickets,
         (SELECT count(*)::int FROM ticketing.waitlist w WHERE w.event_id = e.event_id AND w.status = 'offered') AS holds
       FROM ticketing.events e WHERE e.event_id = $1`,
      [eventId],
    );
    return row;
  }

  it("makes an RSVP a request, and approving a free event's request issues the ticket", async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'approval');
    const [guest, moderator] = [generateAgentKey(), generateAgentKey()];
    const request = await ask(guest, event.eventId);
    expect(request).toMatchObject({
      eventId: event.eventId,
      agentId: guest.agentId,
      status: 'requested',
      tierId: null,
      holdExpiresAt: null,
      decidedAt: null,
      decidedBy: null,
    });
    // Asking again answers with the same request; nothing is issued, nothing announced twice.
    expect(await ask(guest, event.eventId)).toEqual(request);
    expect(
      (await refusalOf(ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId))).code,
    ).toBe('ticket.not_found');
    // Only the host and moderators decide.
    expect((await refusalOf(approve(event.eventId, guest, guest.agentId))).code).toBe('role.forbidden');
    expect((await refusalOf(approve(event.eventId, generateAgentKey()))).code).toBe('request.not_found');
    await ticketing.deliver(
      fixtures.updated({ ...event, moderators: [moderator.agentId], version: event.version + 1 }),
    );
    const approved = await approve(event.eventId, guest, moderator.agentId);
    expect(approved).toMatchObject({ status: 'approved', decidedBy: moderator.agentId, holdExpiresAt: null });
    expect(await approve(event.eventId, guest)).toEqual(approved); // idempotent
    const ticket = await ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId);
    expect(ticket).toMatchObject({ holderId: guest.agentId, status: 'active', price: '0' });
    expect(await rsvp(guest, event.eventId)).toMatchObject({ created: false, ticket: { id: ticket.id } });
    expect((await refusalOf(decline(event.eventId, guest))).code).toBe('request.approved');
    // The host and moderators need no approval.
    expect((await rsvp(host, event.eventId)).created).toBe(true);
    await waitFor('the request announced', async () =>
      published(RequestTopics.approved, event.eventId).length > 0 ? true : undefined,
    );
    expect(published(RequestTopics.requested, event.eventId).map((e) => e.data)).toEqual([request]);
    expect(published(RequestTopics.approved, event.eventId).map((e) => e.data)).toEqual([approved]);
  });

  it('refuses a declined agent, who may still be approved later; an invite admits without asking', async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'approval');
    const [agent, invited] = [generateAgentKey(), generateAgentKey()];
    await ask(agent, event.eventId);
    const declined = await decline(event.eventId, agent);
    expect(declined).toMatchObject({ status: 'declined', decidedBy: host.agentId });
    expect(await decline(event.eventId, agent)).toEqual(declined); // idempotent
    expect((await refusalOf(answer(agent, event.eventId))).code).toBe('access.declined');
    expect(
      (await refusalOf(ticketing.send(Waitlist.join, { eventId: event.eventId }, agent.agentId))).code,
    ).toBe('access.not_approved');
    expect((await approve(event.eventId, agent)).status).toBe('approved');
    expect(await ticketing.send(Tickets.held, { eventId: event.eventId }, agent.agentId)).toMatchObject({
      status: 'active',
    });
    await ticketing.send(Invites.add, { eventId: event.eventId, agentIds: [invited.agentId] }, host.agentId);
    expect((await rsvp(invited, event.eventId)).created).toBe(true);
    await waitFor('the decline announced', async () =>
      published(RequestTopics.declined, event.eventId).length > 0 ? true : undefined,
    );
    expect(published(RequestTopics.declined, event.eventId)).toHaveLength(1);
  });

  it('holds a paid seat for the approved agent: its RSVP buys it, and an unpaid hold expires and frees it', async () => {
    const event = fixtures.anEvent(2, paid('300000'), 5, 'approval');
    const [buyer, idle, outsider] = [
      await funded('1000000'),
      await funded('1000000'),
      await funded('1000000'),
    ];
    // Asking is not paying: a payment sent before approval is neither taken nor charged.
    const early = await ask(buyer, event.eventId);
    expect(early.status).toBe('requested');
    const sent = await answer(buyer, event.eventId, payment(buyer, await offerOf(host, event.eventId)));
    expect(sent).toEqual({ request: early });
    expect(await balanceOf(buyer)).toBe('1000000');
    await ask(idle, event.eventId);
    const held = await approve(event.eventId, buyer);
    const holdsFor = Date.parse(held.holdExpiresAt!) - Date.now();
    expect(holdsFor).toBeGreaterThan(4 * 60_000);
    expect(holdsFor).toBeLessThanOrEqual(5 * 60_000);
    await approve(event.eventId, idle);
    expect(await seats(event.eventId)).toEqual({ sold: 2, tickets: 0, holds: 2 });
    // Both seats are held: an outsider approved now finds none.
    await ask(outsider, event.eventId);
    expect((await refusalOf(approve(event.eventId, outsider))).code).toBe('capacity.sold_out');
    expect(
      (
        await ticketing.send(
          Requests.list,
          { eventId: event.eventId, limit: 10, status: 'requested' },
          host.agentId,
        )
      ).items.map((r) => r.agentId),
    ).toEqual([outsider.agentId]);

    // The approved buyer is asked to pay, and its payment takes its held seat.
    const bought = await rsvp(buyer, event.eventId, payment(buyer, await offerOf(buyer, event.eventId)));
    expect(bought).toMatchObject({ created: true, ticket: { holderId: buyer.agentId, price: '300000' } });
    expect(await balanceOf(buyer)).toBe('700000');
    expect(await seats(event.eventId)).toEqual({ sold: 2, tickets: 1, holds: 1 });

    // The other lets its hold run out: the seat goes back, and the outsider can be approved.
    await ticketing.query(
      `UPDATE ticketing.waitlist SET offer_expires_at = now() - interval '1 second' WHERE agent_id = $1`,
      [idle.agentId],
    );
    await waitFor('the hold expired', async () => {
      const now = await seats(event.eventId);
      return now?.holds === 0 ? true : undefined;
    });
    expect(await seats(event.eventId)).toEqual({ sold: 1, tickets: 1, holds: 0 });
    expect((await approve(event.eventId, outsider)).status).toBe('approved');
    // Approved, with the hold gone: the idle agent may still buy a seat if one is left (none is).
    expect((await refusalOf(answer(idle, event.eventId))).code).toBe('capacity.sold_out');
    await waitFor('the holds announced', async () =>
      published(WaitlistTopics.expired, event.eventId).length > 0 ? true : undefined,
    );
  });

  it('asks a tiered paid event for a tier, and holds a seat of that tier', async () => {
    const event = fixtures.anEvent(
      10,
      {
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'general', name: 'General', price: '100000', capacity: 8 },
          { id: 'vip', name: 'VIP', price: '500000', capacity: 1 },
        ],
      },
      15,
      'approval',
    );
    const agent = await funded('1000000');
    expect((await refusalOf(answer(agent, event.eventId))).code).toBe('validation.failed');
    expect((await refusalOf(answer(agent, event.eventId, undefined, 'gold'))).code).toBe('validation.failed');
    expect((await ask(agent, event.eventId, 'vip')).tierId).toBe('vip');
    await approve(event.eventId, agent);
    const [vipSeat] = await ticketing.query(
      `SELECT sold FROM ticketing.inventory WHERE event_id = $1 AND tier_id = 'vip'`,
      [event.eventId],
    );
    expect(vipSeat).toEqual({ sold: 1 });
  });

  it('gives exactly as many seats as there are to 30 approvals at once', async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'approval');
    const agents = Array.from({ length: 30 }, () => generateAgentKey());
    for (const agent of agents) await ask(agent, event.eventId);
    const outcomes = await Promise.allSettled(agents.map((agent) => approve(event.eventId, agent)));
    const approved = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(approved).toHaveLength(10);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect((outcome.reason as { code?: string }).code).toBe('capacity.sold_out');
    expect(await seats(event.eventId)).toEqual({ sold: 10, tickets: 10, holds: 0 });
    const requested = await ticketing.send(
      Requests.list,
      { eventId: event.eventId, limit: 50, status: 'requested' },
      host.agentId,
    );
    expect(requested.items).toHaveLength(20);
  });

  it('pages the requests oldest first, by status, for the host and moderators only', async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'approval');
    const agents = Array.from({ length: 5 }, () => generateAgentKey());
    const asked = [];
    for (const agent of agents) asked.push(await ask(agent, event.eventId));
    await decline(event.eventId, agents[1]!);
    const order = asked
      .sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || (a.agentId < b.agentId ? -1 : 1))
      .map((request) => request.agentId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ticketing.send(
        Requests.list,
        { eventId: event.eventId, limit: 2, ...(cursor ? { cursor } : {}) },
        host.agentId,
      );
      seen.push(...page.items.map((item) => item.agentId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(order);
    const declined = await ticketing.send(
      Requests.list,
      { eventId: event.eventId, limit: 10, status: 'declined' },
      host.agentId,
    );
    expect(declined.items.map((item) => item.agentId)).toEqual([agents[1]!.agentId]);
    expect(
      (
        await refusalOf(
          ticketing.send(Requests.list, { eventId: event.eventId, limit: 10 }, agents[0]!.agentId),
        )
      ).code,
    ).toBe('role.forbidden');
    expect(
      (
        await refusalOf(
          ticketing.send(Requests.list, { eventId: event.eventId, limit: 10, cursor: 'x' }, host.agentId),
        )
      ).code,
    ).toBe('validation.failed');
  });
});

// The waitlist in the ticketing service on its own (the service tier: libs/testing/src/service.ts):
// a stand-in answers Events.access, domain events are delivered to ticketing's consumers directly.
// docs/product.md "Waitlist".
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { Inventory, TicketTopics, Tickets, Waitlist, WaitlistTopics } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import type { PaymentRequirements } from '@townhall/x402';
import { paid, TicketingFixtures } from './fixtures.js';

describe('ticketing: the waitlist', () => {
  const fixtures = new TicketingFixtures();
  const { host, rsvp, funded, payment } = fixtures;
  const anEvent: typeof fixtures.anEvent = (capacity, ticketing) => fixtures.anEvent(capacity, ticketing, 5);
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true', WAITLIST_SWEEP_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    // What ticketing announced is what the AsyncAPI document says (the events service's stand-in
    // events delivered here are partial on purpose).
    const off = ticketing?.offCatalog().filter((event) => !event.type.startsWith('townhall.event.'));
    await ticketing?.stop();
    expect(off).toEqual([]);
  });

  const join = (agent: AgentKey, eventId: string, tierId?: string) =>
    ticketing.send(Waitlist.join, { eventId, ...(tierId ? { tierId } : {}) }, agent.agentId);
  const mine = async (agent: AgentKey) => (await ticketing.send(Waitlist.mine, {}, agent.agentId)).items;
  /** The seats counted for the event, and what holds them. */
  async function seats(eventId: string) {
    const [row] = await ticketing.query(
      `SELECT e.sold, (SELECT sum(sold)::int FROM ticketing.inventory i WHERE i.event_id = e.event_id) AS tier_sold,
         (SELECT count(*)::int FROM ticketing.tickets t WHERE t.event_id = e.event_id AND t.status <> 'cancelled') AS tickets,
         (SELECT count(*)::int FROM ticketing.waitlist w WHERE w.event_id = e.event_id AND w.status = 'offered') AS offers
       FROM ticketing.events e WHERE e.event_id = $1`,
      [eventId],
    );
    return row;
  }
  const published = (type: string, eventId: string) =>
    ticketing.published.filter((event) => event.type === type && event.subject === eventId);

  it('lines agents up for a full free event and issues freed seats to them in order of joining', async () => {
    const event = anEvent(2);
    const holders = [generateAgentKey(), generateAgentKey()];
    const early = generateAgentKey();
    expect((await refusalOf(join(early, event.eventId))).code).toBe('waitlist.seats_available');
    for (const holder of holders) await rsvp(holder, event.eventId);
    // A holder has nothing to wait for.
    expect((await refusalOf(join(holders[0]!, event.eventId))).code).toBe('waitlist.seats_available');
    expect((await refusalOf(join(early, event.eventId, 'vip'))).code).toBe('validation.failed');

    const line = Array.from({ length: 5 }, () => generateAgentKey());
    const joined = [];
    for (const agent of line) joined.push(await join(agent, event.eventId));
    expect(joined.map((reply) => [reply.created, reply.entry.status, reply.entry.position])).toEqual(
      [1, 2, 3, 4, 5].map((position) => [true, 'waiting', position]),
    );
    const again = await join(line[2]!, event.eventId);
    expect(again).toMatchObject({ created: false, entry: { id: joined[2]!.entry.id, position: 3 } });

    // Both holders give their seats back at once: the first two in line get them.
    await Promise.all(
      holders.map((holder) => ticketing.send(Tickets.release, { eventId: event.eventId }, holder.agentId)),
    );
    for (const agent of line.slice(0, 2)) {
      const ticket = await ticketing.send(Tickets.held, { eventId: event.eventId }, agent.agentId);
      expect(ticket).toMatchObject({ status: 'active', price: '0' });
      expect((await mine(agent))[0]).toMatchObject({ status: 'accepted', position: null });
    }
    expect((await mine(line[2]!))[0]).toMatchObject({ status: 'waiting', position: 1 });
    expect((await mine(line[4]!))[0]).toMatchObject({ status: 'waiting', position: 3 });
    expect(await seats(event.eventId)).toEqual({ sold: 2, tier_sold: 2, tickets: 2, offers: 0 });
    expect((await refusalOf(rsvp(generateAgentKey(), event.eventId))).code).toBe('capacity.sold_out');

    // Leaving: once; a second time there is nothing to leave.
    const left = await ticketing.send(Waitlist.leave, { eventId: event.eventId }, line[2]!.agentId);
    expect(left).toMatchObject({ status: 'left', position: null });
    expect(
      (await refusalOf(ticketing.send(Waitlist.leave, { eventId: event.eventId }, line[2]!.agentId))).code,
    ).toBe('waitlist.not_found');
    expect((await mine(line[3]!))[0]).toMatchObject({ status: 'waiting', position: 1 });

    // Capacity raised by one: the next in line (line[3]) gets it, not the sale.
    await ticketing.send(
      Inventory.changeCapacity,
      { eventId: event.eventId, version: 2, capacity: 3, ticketing: { mode: 'free' } },
      host.agentId,
    );
    expect((await mine(line[3]!))[0]).toMatchObject({ status: 'accepted' });
    expect(await seats(event.eventId)).toEqual({ sold: 3, tier_sold: 3, tickets: 3, offers: 0 });

    await waitFor('the domain events', async () =>
      published(WaitlistTopics.joined, event.eventId).length === 5 &&
      published(WaitlistTopics.accepted, event.eventId).length === 3 &&
      published(WaitlistTopics.left, event.eventId).length === 1 &&
      published(TicketTopics.issued, event.eventId).length === 5
        ? true
        : undefined,
    );
  });

  it('holds a freed paid seat for the first in line: its RSVP buys it, nobody else can, and an expired offer passes on', async () => {
    const event = anEvent(1, paid('300'));
    const [first, second, third, outsider] = await Promise.all(
      Array.from({ length: 4 }, () => funded('1000')),
    );
    const offerOf = (agent: AgentKey) => fixtures.offerOf(agent, event.eventId);
    const pay = (agent: AgentKey, offer: PaymentRequirements) =>
      rsvp(agent, event.eventId, payment(agent, offer));
    const requirements = await offerOf(outsider!);
    await pay(generateAgentKey(), requirements).catch(() => undefined); // unfunded: refused
    const owner = await funded('1000');
    await pay(owner, requirements); // the one seat
    for (const agent of [first!, second!, third!]) await join(agent, event.eventId);

    const change = (capacity: number, version: number) =>
      ticketing.send(
        Inventory.changeCapacity,
        {
          eventId: event.eventId,
          version,
          capacity,
          ticketing: { mode: 'single', price: '300', asset: 'USDC' },
        },
        host.agentId,
      );
    await change(2, 2);
    const [offered] = await mine(first!);
    expect(offered).toMatchObject({ status: 'offered', position: null });
    const expiresIn = Date.parse(offered!.offerExpiresAt!) - Date.now();
    expect(expiresIn).toBeGreaterThan(4 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(5 * 60_000);
    expect(await seats(event.eventId)).toEqual({ sold: 2, tier_sold: 2, tickets: 1, offers: 1 });

    // Sold out to everyone else, even with a payment signed while the seat was on sale.
    expect((await refusalOf(pay(outsider!, requirements))).code).toBe('capacity.sold_out');
    expect((await refusalOf(rsvp(outsider!, event.eventId))).code).toBe('capacity.sold_out');
    // The offered agent is asked to pay, and its payment takes the held seat.
    const bought = await pay(first!, await offerOf(first!));
    expect(bought).toMatchObject({ created: true, ticket: { holderId: first!.agentId, status: 'active' } });
    expect((await mine(first!))[0]).toMatchObject({ status: 'accepted' });
    expect(await seats(event.eventId)).toEqual({ sold: 2, tier_sold: 2, tickets: 2, offers: 0 });

    // The next seat is offered to `second`; it lets the offer run out: `third` gets it.
    await change(3, 3);
    expect((await mine(second!))[0]).toMatchObject({ status: 'offered' });
    await ticketing.query(
      `UPDATE ticketing.waitlist SET offer_expires_at = now() - interval '1 second' WHERE agent_id = $1`,
      [second!.agentId],
    );
    await waitFor('the offer expired and passed on', async () =>
      (await mine(third!))[0]?.status === 'offered' ? true : undefined,
    );
    expect((await mine(second!))[0]).toMatchObject({ status: 'expired' });
    expect((await refusalOf(pay(second!, requirements))).code).toBe('capacity.sold_out');
    expect(await seats(event.eventId)).toEqual({ sold: 3, tier_sold: 3, tickets: 2, offers: 1 });

    // `third` leaves: the held seat goes back on sale (nobody else waits).
    await ticketing.send(Waitlist.leave, { eventId: event.eventId }, third!.agentId);
    expect(await seats(event.eventId)).toEqual({ sold: 2, tier_sold: 2, tickets: 2, offers: 0 });
    expect((await pay(outsider!, await offerOf(outsider!))).created).toBe(true);
    await waitFor('the offers announced', async () =>
      published(WaitlistTopics.offered, event.eventId).length === 3 &&
      published(WaitlistTopics.accepted, event.eventId).length === 1 &&
      published(WaitlistTopics.expired, event.eventId).length === 1
        ? true
        : undefined,
    );
  });

  it('passes each run-out offer on once with three replicas sweeping at once', async () => {
    await ticketing.startReplica();
    await ticketing.startReplica();
    const lines = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const event = anEvent(1, paid('300'));
        const owner = await funded('1000');
        await rsvp(owner, event.eventId, payment(owner, await fixtures.offerOf(owner, event.eventId)));
        const waiting = [generateAgentKey(), generateAgentKey()];
        for (const agent of waiting) await join(agent, event.eventId);
        await ticketing.send(
          Inventory.changeCapacity,
          {
            eventId: event.eventId,
            version: 2,
            capacity: 2,
            ticketing: { mode: 'single', price: '300', asset: 'USDC' },
          },
          host.agentId,
        );
        return { eventId: event.eventId, waiting };
      }),
    );
    const ids = lines.map((line) => line.eventId);
    // Every first offer runs out at once; each replica sweeps every 100 ms.
    await ticketing.query(
      `UPDATE ticketing.waitlist SET offer_expires_at = now() - interval '1 second'
        WHERE status = 'offered' AND event_id = ANY($1::uuid[])`,
      [ids],
    );
    for (const { waiting } of lines) {
      await waitFor('the offer passed on', async () =>
        (await mine(waiting[1]!))[0]?.status === 'offered' ? true : undefined,
      );
    }
    for (const { eventId, waiting } of lines) {
      expect((await mine(waiting[0]!))[0]).toMatchObject({ status: 'expired' });
      expect(await seats(eventId)).toEqual({ sold: 2, tier_sold: 2, tickets: 1, offers: 1 });
    }
    // Announced once each, whichever replica swept it.
    await waitFor('the offers announced', async () =>
      lines.every(
        ({ eventId }) =>
          published(WaitlistTopics.expired, eventId).length === 1 &&
          published(WaitlistTopics.offered, eventId).length === 2,
      )
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { eventId } of lines) {
      expect(published(WaitlistTopics.expired, eventId)).toHaveLength(1);
      expect(published(WaitlistTopics.offered, eventId)).toHaveLength(2);
    }
  });

  it('expires every entry in line when the event is cancelled', async () => {
    const event = anEvent(1);
    await rsvp(generateAgentKey(), event.eventId);
    const waiting = [generateAgentKey(), generateAgentKey()];
    for (const agent of waiting) await join(agent, event.eventId);
    const cancelled = fixtures.cancelled(event);
    await ticketing.deliver(cancelled);
    for (const agent of waiting) expect((await mine(agent))[0]).toMatchObject({ status: 'expired' });
    expect((await refusalOf(join(generateAgentKey(), event.eventId))).code).toBe('ticket.not_on_sale');
  });
});

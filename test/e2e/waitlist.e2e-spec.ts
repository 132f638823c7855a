import type { EventFieldsInput, WaitlistEntryView } from '@townhall/contracts';
import { AgentClient, type WaitlistJoinResult } from '@townhall/sdk';
import { DomainEventTap, refusal, StandaloneProcess, Topology, waitFor } from '@townhall/testing';
import pg from 'pg';

/*
 * docs/product.md "Waitlist": the seats freed in a sold-out event go to the agents waiting, in the
 * order they joined, exactly once; a paid seat is held as an offer for the first in line. The races
 * run for real in the distributed topology (separate processes, Postgres, NATS, Redis); the core
 * path once more in standalone mode.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'A full house',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
    ...overrides,
  };
}

/**
 * docs/product.md "Who may come": an invite-only event through the gateway, as either mode runs
 * it. The host's invites are idempotent and hostile input is refused; an invite removed keeps the
 * ticket it let the agent take; an event made open lets anyone in.
 */
async function whoMayCome(client: () => AgentClient): Promise<void> {
  const host = client();
  const event = await host.events.create(anEvent({ capacity: 5, access: 'invite' }));
  expect(event.access).toBe('invite');
  const [guest, stranger] = [client(), client()];
  expect(await refusal(stranger.tickets.rsvp(event.id))).toEqual({ status: 403, code: 'access.not_invited' });
  expect(await refusal(stranger.waitlist.join(event.id))).toEqual({
    status: 403,
    code: 'access.not_invited',
  });
  expect(await refusal(stranger.invites.add(event.id, [stranger.agentId]))).toEqual({
    status: 403,
    code: 'role.forbidden',
  });
  expect(await refusal(stranger.invites.list(event.id))).toEqual({ status: 403, code: 'role.forbidden' });

  const added = await host.invites.add(event.id, [guest.agentId, guest.agentId]);
  expect(added).toMatchObject({ added: 1, invites: [{ agentId: guest.agentId, invitedBy: host.agentId }] });
  expect(await host.invites.add(event.id, [guest.agentId])).toEqual({ added: 0, invites: added.invites });
  expect((await host.invites.list(event.id)).items).toEqual(added.invites);
  for (const agentIds of [[], Array.from({ length: 101 }, () => client().agentId), ['not an agent\u0000']])
    expect(await refusal(host.invites.add(event.id, agentIds))).toEqual({
      status: 400,
      code: 'validation.failed',
    });
  expect(await refusal(host.invites.list(event.id, { cursor: 'tampered' }))).toEqual({
    status: 400,
    code: 'validation.failed',
  });

  const { ticket, created } = await guest.tickets.rsvp(event.id);
  expect([created, ticket.status]).toEqual([true, 'active']);
  expect(await host.invites.remove(event.id, guest.agentId)).toEqual(added.invites[0]);
  expect(await refusal(host.invites.remove(event.id, guest.agentId))).toEqual({
    status: 404,
    code: 'invite.not_found',
  });
  expect((await host.invites.list(event.id)).items).toEqual([]);
  expect(await guest.tickets.held(event.id)).toMatchObject({ id: ticket.id, status: 'active' });

  // Made open, the event lets anyone in (ticketing hears of the change from the event's domain event).
  expect((await host.events.update(event.id, { access: 'open' })).access).toBe('open');
  await waitFor('the stranger let in', async () => {
    const reply = await stranger.tickets.rsvp(event.id).catch(() => undefined);
    return reply?.ticket.status === 'active' ? reply : undefined;
  });
}

describe('waitlist (distributed)', () => {
  let topology: Topology;
  let db: pg.Client;
  let host: AgentClient;

  beforeAll(async () => {
    topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true' },
      serviceEnv: {
        // Payments signed now stay valid on a clock moved 16 minutes on (see the last test).
        ticketing: { WAITLIST_SWEEP_INTERVAL_MS: '200', PAYMENT_TIMEOUT_SECONDS: '3600' },
      },
    });
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
    host = topology.client();
  });
  afterAll(async () => {
    await db?.end();
    await topology?.stop();
  });

  /** Seats and tickets as ticketing counts them, and the line's entries by status. */
  async function ledgerOfSeats(eventId: string) {
    const { rows } = await db.query<{ sold: number; tier_sold: number; tickets: number; entries: unknown }>(
      `SELECT e.sold, (SELECT sum(i.sold)::int FROM ticketing.inventory i WHERE i.event_id = e.event_id) AS tier_sold,
         (SELECT count(*)::int FROM ticketing.tickets t WHERE t.event_id = e.event_id AND t.status = 'active') AS tickets,
         (SELECT json_object_agg(status, n) FROM (
            SELECT status, count(*)::int AS n FROM ticketing.waitlist w WHERE w.event_id = e.event_id GROUP BY status) s) AS entries
       FROM ticketing.events e WHERE e.event_id = $1`,
      [eventId],
    );
    return rows[0];
  }

  it('gives ten seats freed at once to the first ten of fifty waiting, in order, none lost or sold twice', async () => {
    const event = await host.events.create(anEvent({ capacity: 10 }));
    const holders = Array.from({ length: 10 }, () => topology.client());
    await Promise.all(holders.map((holder) => holder.tickets.rsvp(event.id)));
    const waiting = Array.from({ length: 50 }, () => topology.client());
    expect(await refusal(waiting[0]!.waitlist.join(event.id, { tierId: 'vip' }))).toEqual({
      status: 400,
      code: 'validation.failed',
    });
    expect(await refusal(holders[0]!.waitlist.join(event.id))).toEqual({
      status: 409,
      code: 'waitlist.seats_available',
    });

    // Fifty join at once: each gets its own place, 1 to 50, in the order the joins committed.
    const joined = await Promise.all(waiting.map((agent) => agent.waitlist.join(event.id)));
    expect(joined.every((reply) => reply.created && reply.entry.status === 'waiting')).toBe(true);
    expect(joined.map((reply) => reply.entry.position).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
    const inLine = (reply: WaitlistJoinResult) => reply.entry.position!;
    const byPlace = waiting.map((agent, index) => ({ agent, place: inLine(joined[index]!) }));
    byPlace.sort((a, b) => a.place - b.place);
    const again = await byPlace[0]!.agent.waitlist.join(event.id);
    expect(again).toEqual({
      entry: { ...joined[waiting.indexOf(byPlace[0]!.agent)]!.entry },
      created: false,
    });

    // The ten holders give their seats back at once.
    const tap = await DomainEventTap.start(topology.nats, ['townhall.waitlist.accepted']);
    await Promise.all(holders.map((holder) => holder.tickets.release(event.id)));

    const first = byPlace.slice(0, 10);
    const rest = byPlace.slice(10);
    const tickets = await Promise.all(first.map(({ agent }) => agent.tickets.held(event.id)));
    expect(tickets.every((ticket) => ticket.status === 'active' && ticket.price === '0')).toBe(true);
    // In order: the seat freed first went to the first in line (the order ticketing announced them).
    try {
      await tap.waitFor('ten offers accepted', () => tap.about(event.id).length >= 10);
      const accepted = tap.about(event.id).map((announced) => (announced.data as WaitlistEntryView).agentId);
      expect(accepted).toEqual(first.map(({ agent }) => agent.agentId));
    } finally {
      await tap.stop();
    }
    expect(await ledgerOfSeats(event.id)).toEqual({
      sold: 10,
      tier_sold: 10,
      tickets: 10,
      entries: { accepted: 10, waiting: 40 },
    });
    // The rest keep their order, now 1 to 40.
    const places = await Promise.all(rest.map(async ({ agent }) => (await agent.waitlist.mine()).items[0]));
    expect(places.map((entry) => [entry?.status, entry?.position])).toEqual(
      rest.map((_, index) => ['waiting', index + 1]),
    );
    expect(await refusal(topology.client().tickets.rsvp(event.id))).toEqual({
      status: 409,
      code: 'capacity.sold_out',
    });
    // The events service counted the tickets the waitlist issued too.
    await waitFor('the event counts', async () => {
      const counted = await topology.client().events.get(event.id);
      return counted.counts.ticketsSold['general'] === 10 ? true : undefined;
    });
  });

  it('lets only the invited into an invite-only event', async () => {
    await whoMayCome(() => topology.client());
  });

  it('holds a freed paid seat for the first in line; an offer that runs out passes to the next', async () => {
    const event = await host.events.create(
      anEvent({ capacity: 1, offerMinutes: 10, ticketing: { mode: 'single', price: '100' } }),
    );
    expect(event.offerMinutes).toBe(10);
    const funded = async () => {
      const agent = topology.client();
      await agent.ledger.faucet('1000');
      return agent;
    };
    const [owner, first, second, third, outsider] = await Promise.all(Array.from({ length: 5 }, funded));
    await owner!.tickets.rsvp(event.id, { maxPrice: '100' });
    for (const agent of [first!, second!, third!]) await agent.waitlist.join(event.id);
    const statusOf = async (agent: AgentClient): Promise<WaitlistEntryView> =>
      (await agent.waitlist.mine()).items.find((entry) => entry.eventId === event.id)!;

    // One more seat: held for `first`, for offerMinutes.
    await host.events.update(event.id, { capacity: 2 });
    const offer = await statusOf(first!);
    expect(offer).toMatchObject({ status: 'offered', position: null });
    const holdsFor = Date.parse(offer.offerExpiresAt!) - Date.now();
    expect(holdsFor).toBeGreaterThan(9 * MINUTE);
    expect(holdsFor).toBeLessThanOrEqual(10 * MINUTE);
    expect(await refusal(outsider!.tickets.rsvp(event.id, { maxPrice: '100' }))).toEqual({
      status: 409,
      code: 'capacity.sold_out',
    });
    const bought = await first!.tickets.rsvp(event.id, { maxPrice: '100' });
    expect(bought).toMatchObject({ created: true, ticket: { status: 'active', price: '100' } });
    expect(bought.payment?.success).toBe(true);
    expect(await statusOf(first!)).toMatchObject({ status: 'accepted' });

    // The next seat is offered to `second`, who lets it run out: ticketing restarts with its
    // clock moved past the offer (CLOCK_OFFSET_MS, tests only), and its sweep passes the seat on.
    await host.events.update(event.id, { capacity: 3 });
    expect(await statusOf(second!)).toMatchObject({ status: 'offered' });
    await topology.restartService('ticketing', { CLOCK_OFFSET_MS: String(16 * MINUTE) });
    await waitFor('the offer to pass on', async () =>
      (await statusOf(third!)).status === 'offered' ? true : undefined,
    );
    expect(await statusOf(second!)).toMatchObject({ status: 'expired' });
    expect(await refusal(second!.tickets.rsvp(event.id, { maxPrice: '100' }))).toEqual({
      status: 409,
      code: 'capacity.sold_out',
    });
    expect((await third!.tickets.rsvp(event.id, { maxPrice: '100' })).created).toBe(true);
    expect(await ledgerOfSeats(event.id)).toEqual({
      sold: 3,
      tier_sold: 3,
      tickets: 3,
      entries: { accepted: 2, expired: 1 },
    });
    expect(await refusal(outsider!.tickets.rsvp(event.id, { maxPrice: '100' }))).toEqual({
      status: 409,
      code: 'capacity.sold_out',
    });
  });
});

describe('waitlist (standalone)', () => {
  const AUDIENCE = 'https://waitlist.townhall.test';
  let standalone: StandaloneProcess;
  const client = () => new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE });

  beforeAll(async () => {
    standalone = await StandaloneProcess.start({ PUBLIC_BASE_URL: AUDIENCE });
  });
  afterAll(async () => {
    await standalone?.stop();
  });

  it('lets only the invited into an invite-only event', async () => {
    await whoMayCome(client);
  });

  it('gives a seat given back to the first in line, and lets the second leave', async () => {
    const host = client();
    const event = await host.events.create(anEvent({ capacity: 1 }));
    const holder = client();
    await holder.tickets.rsvp(event.id);
    const [first, second] = [client(), client()];
    expect((await first.waitlist.join(event.id)).entry.position).toBe(1);
    expect((await second.waitlist.join(event.id)).entry.position).toBe(2);
    await holder.tickets.release(event.id);
    expect((await first.tickets.held(event.id)).status).toBe('active');
    expect((await second.waitlist.mine()).items[0]).toMatchObject({ status: 'waiting', position: 1 });
    expect(await second.waitlist.leave(event.id)).toMatchObject({ status: 'left' });
    expect(await refusal(second.waitlist.leave(event.id))).toEqual({
      status: 404,
      code: 'waitlist.not_found',
    });
  });
});

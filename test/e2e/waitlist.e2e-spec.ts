import type { EventFieldsInput, WaitlistEntryView } from '@townhall/contracts';
import type { AgentKey } from '@townhall/auth';
import { AgentClient, type RsvpTicketResult, type WaitlistJoinResult } from '@townhall/sdk';
import { DomainEventTap, refusal, StandaloneProcess, Topology, waitFor } from '@townhall/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  const { ticket, created } = (await guest.tickets.rsvp(event.id)) as RsvpTicketResult;
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
    return reply && 'ticket' in reply && reply.ticket.status === 'active' ? reply : undefined;
  });
}

/**
 * docs/product.md "Who may come": an event that needs approval through the gateway, as either mode
 * runs it. An RSVP is a request; approving a free event issues the ticket, a paid one holds a seat
 * that the agent's payment buys; a declined agent is refused. A hold left unpaid expires and frees
 * its seat: `passTime` moves ticketing's clock past it (a restart), after which `client` builds the
 * clients again (the standalone process comes back on another port).
 */
async function whomTheHostApproves(
  client: (key?: AgentKey) => AgentClient,
  passTime: () => Promise<void>,
): Promise<void> {
  let host = client();
  const free = await host.events.create(anEvent({ capacity: 5, access: 'approval' }));
  expect(free.access).toBe('approval');
  const [guest, turnedAway, stranger] = [client(), client(), client()];
  const asked = await guest.tickets.rsvp(free.id);
  expect(asked).toEqual({
    request: expect.objectContaining({ eventId: free.id, agentId: guest.agentId, status: 'requested' }),
  });
  expect(await guest.tickets.rsvp(free.id)).toEqual(asked);
  expect(await refusal(guest.tickets.held(free.id))).toEqual({ status: 404, code: 'ticket.not_found' });
  expect(await refusal(stranger.requests.list(free.id))).toEqual({ status: 403, code: 'role.forbidden' });
  expect(await refusal(stranger.requests.approve(free.id, guest.agentId))).toEqual({
    status: 403,
    code: 'role.forbidden',
  });
  expect(await refusal(host.requests.approve(free.id, stranger.agentId))).toEqual({
    status: 404,
    code: 'request.not_found',
  });
  expect(await refusal(host.requests.list(free.id, { cursor: 'tampered' }))).toEqual({
    status: 400,
    code: 'validation.failed',
  });
  expect((await host.requests.list(free.id, { status: 'requested' })).items).toEqual([
    'request' in asked ? asked.request : undefined,
  ]);
  expect(await host.requests.approve(free.id, guest.agentId)).toMatchObject({
    status: 'approved',
    decidedBy: host.agentId,
    holdExpiresAt: null,
  });
  expect(await guest.tickets.held(free.id)).toMatchObject({ status: 'active', price: '0' });
  expect(await refusal(host.requests.decline(free.id, guest.agentId))).toEqual({
    status: 409,
    code: 'request.approved',
  });
  await turnedAway.tickets.rsvp(free.id);
  expect(await host.requests.decline(free.id, turnedAway.agentId)).toMatchObject({ status: 'declined' });
  expect(await refusal(turnedAway.tickets.rsvp(free.id))).toEqual({ status: 403, code: 'access.declined' });
  expect(await refusal(turnedAway.waitlist.join(free.id))).toEqual({
    status: 403,
    code: 'access.not_approved',
  });

  // Thirty requests approved at once against ten seats: exactly ten tickets, the rest 409.
  const crowded = await host.events.create(anEvent({ capacity: 10, access: 'approval' }));
  const crowd = Array.from({ length: 30 }, () => client());
  for (const agent of crowd) await agent.tickets.rsvp(crowded.id);
  const approvals = await Promise.allSettled(
    crowd.map((agent) => host.requests.approve(crowded.id, agent.agentId)),
  );
  expect(approvals.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
  for (const outcome of approvals)
    if (outcome.status === 'rejected')
      expect(outcome.reason).toMatchObject({ status: 409, code: 'capacity.sold_out' });
  expect((await host.tickets.attendees(crowded.id, { limit: 50 })).items).toHaveLength(10);
  expect((await host.requests.list(crowded.id, { status: 'requested', limit: 50 })).items).toHaveLength(20);

  // A paid event of one seat: asking costs nothing; the seat is held for the first approved.
  const paid = await host.events.create(
    anEvent({
      capacity: 1,
      offerMinutes: 10,
      access: 'approval',
      ticketing: { mode: 'single', price: '100' },
    }),
  );
  const funded = async () => {
    const agent = client();
    await agent.ledger.faucet('1000');
    return agent;
  };
  let [idle, buyer] = await Promise.all([funded(), funded()]);
  for (const agent of [idle!, buyer!])
    expect(await agent.tickets.rsvp(paid.id, { maxPrice: '100' })).toMatchObject({
      request: { status: 'requested' },
    });
  expect((await idle!.ledger.balance()).balances).toEqual([{ asset: 'USDC', amount: '1000' }]);
  const held = await host.requests.approve(paid.id, idle!.agentId);
  // On ticketing's clock, which a passTime before this may have moved on.
  const holdsFor = Date.parse(held.holdExpiresAt!) - Date.parse(held.decidedAt!);
  expect(holdsFor).toBeGreaterThan(9 * MINUTE);
  expect(holdsFor).toBeLessThanOrEqual(10 * MINUTE);
  expect(await refusal(host.requests.approve(paid.id, buyer!.agentId))).toEqual({
    status: 409,
    code: 'capacity.sold_out',
  });

  // The idle agent lets its hold run out: the seat goes back, and the buyer is approved and buys it.
  await passTime();
  [host, idle, buyer] = [client(host.key), client(idle!.key), client(buyer!.key)];
  const approved = await waitFor('the hold to expire and free its seat', () =>
    host.requests.approve(paid.id, buyer!.agentId).catch(() => undefined),
  );
  expect(approved).toMatchObject({ status: 'approved', agentId: buyer!.agentId });
  expect(approved.holdExpiresAt).not.toBeNull();
  const bought = (await buyer!.tickets.rsvp(paid.id, { maxPrice: '100' })) as RsvpTicketResult;
  expect(bought).toMatchObject({ created: true, ticket: { status: 'active', price: '100' } });
  expect((await buyer!.ledger.balance()).balances).toEqual([{ asset: 'USDC', amount: '900' }]);
  // Approved, its hold gone: the idle agent buys like anyone, and the one seat is sold.
  expect(await refusal(idle!.tickets.rsvp(paid.id, { maxPrice: '100' }))).toEqual({
    status: 409,
    code: 'capacity.sold_out',
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
        // Payments signed now stay valid on a clock moved on by passTime (16 minutes at a time).
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

  /** Ticketing restarted with its clock 16 minutes further on (CLOCK_OFFSET_MS, tests only): offers and holds run out. */
  let clockAhead = 0;
  async function passTime(): Promise<void> {
    clockAhead += 16 * MINUTE;
    await topology.restartService('ticketing', { CLOCK_OFFSET_MS: String(clockAhead) });
  }

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
    const bought = (await first!.tickets.rsvp(event.id, { maxPrice: '100' })) as RsvpTicketResult;
    expect(bought).toMatchObject({ created: true, ticket: { status: 'active', price: '100' } });
    expect(bought.payment?.success).toBe(true);
    expect(await statusOf(first!)).toMatchObject({ status: 'accepted' });

    // The next seat is offered to `second`, who lets it run out: ticketing restarts with its
    // clock moved past the offer (CLOCK_OFFSET_MS, tests only), and its sweep passes the seat on.
    await host.events.update(event.id, { capacity: 3 });
    expect(await statusOf(second!)).toMatchObject({ status: 'offered' });
    await passTime();
    await waitFor('the offer to pass on', async () =>
      (await statusOf(third!)).status === 'offered' ? true : undefined,
    );
    expect(await statusOf(second!)).toMatchObject({ status: 'expired' });
    expect(await refusal(second!.tickets.rsvp(event.id, { maxPrice: '100' }))).toEqual({
      status: 409,
      code: 'capacity.sold_out',
    });
    expect(await third!.tickets.rsvp(event.id, { maxPrice: '100' })).toMatchObject({ created: true });
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

  it('lets in whom the host approves: a free ticket, a held seat bought, a hold run out, a decline', async () => {
    await whomTheHostApproves((key) => topology.client(key), passTime);
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

  it('lets in whom the host approves: a free ticket, a held seat bought, a hold run out, a decline', async () => {
    // Its own process, keeping its data (--data-dir) across the restart that moves its clock on.
    const dataDir = mkdtempSync(join(tmpdir(), 'townhall-approval-'));
    const env = {
      PUBLIC_BASE_URL: AUDIENCE,
      LEDGER_FAUCET: 'true',
      WAITLIST_SWEEP_INTERVAL_MS: '200',
      PAYMENT_TIMEOUT_SECONDS: '3600',
    };
    let own = await StandaloneProcess.start(env, 0, { dataDir });
    try {
      await whomTheHostApproves(
        (key) => new AgentClient({ baseUrl: own.baseUrl, audience: AUDIENCE, ...(key ? { key } : {}) }),
        async () => {
          await own.stop();
          own = await StandaloneProcess.start({ ...env, CLOCK_OFFSET_MS: String(16 * MINUTE) }, 0, {
            dataDir,
          });
        },
      );
    } finally {
      await own.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
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

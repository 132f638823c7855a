// Ticketing's part of an event's report in the service on its own (the service tier:
// libs/testing/src/service.ts): a stand-in answers Events.access, domain events are delivered to
// ticketing's consumers directly. docs/product.md "The report".
import { randomUUID } from 'node:crypto';
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { Codes, Reports, Tickets, type CreateCode, type TicketingReport } from '@townhall/contracts';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import type { PaymentRequirements } from '@townhall/x402';
import { ticketOf, TicketingFixtures } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('ticketing: the report', () => {
  const fixtures = new TicketingFixtures();
  const { host, funded, payment } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true' });
  });
  afterAll(async () => {
    const off = ticketing?.offCatalog().filter((event) => !event.type.startsWith('townhall.event.'));
    await ticketing?.stop();
    expect(off).toEqual([]);
  });

  const report = (eventId: string, by = host.agentId) => ticketing.send(Reports.sales, { eventId }, by);
  const create = (eventId: string, code: Omit<CreateCode, 'eventId'>) =>
    ticketing.send(Codes.create, { eventId, ...code }, host.agentId);
  const rsvp = (
    agent: AgentKey,
    eventId: string,
    options: { code?: string; tierId?: string; payment?: string } = {},
  ) => ticketing.send(Tickets.rsvp, { eventId, ...options }, agent.agentId);
  /** A ticket of `tierId` bought on the ledger (with `code`, at its price) by a new funded agent. */
  const buy = async (eventId: string, tierId: string, code?: string) => {
    const buyer = await funded('100000');
    const error = await refusalOf(rsvp(buyer, eventId, { tierId, ...(code ? { code } : {}) }));
    expect(error.code).toBe('payment.required');
    const offer = (error.extensions?.['x402'] as { accepts: PaymentRequirements[] }).accepts.find(
      (accept) => accept.extra.tierId === tierId,
    )!;
    const bought = ticketOf(
      await rsvp(buyer, eventId, { tierId, payment: payment(buyer, offer), ...(code ? { code } : {}) }),
    );
    return { buyer, ticket: bought.ticket };
  };
  /** The host's credits on the ledger for the event, summed per asset and network, as the table has them. */
  const ledgerCredits = (eventId: string) =>
    ticketing.query<{ asset: string; network: string | null; amount: string }>(
      `SELECT asset, network, sum(amount)::text AS amount FROM ticketing.ledger_entries
        WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount > 0
        GROUP BY asset, network ORDER BY asset, network NULLS FIRST`,
      [eventId],
    );
  /** overTime never goes down, its instants move forward, and its last point is every ticket ever issued. */
  const expectCurve = async (sales: TicketingReport['sales'], eventId: string) => {
    const { overTime } = sales.registrations;
    const [{ issued }] = (await ticketing.query<{ issued: number }>(
      `SELECT count(*)::int AS issued FROM ticketing.tickets WHERE event_id = $1`,
      [eventId],
    )) as [{ issued: number }];
    expect(overTime.length).toBeGreaterThan(0);
    expect(overTime.length).toBeLessThanOrEqual(100);
    for (let i = 1; i < overTime.length; i++) {
      expect(overTime[i]!.total).toBeGreaterThanOrEqual(overTime[i - 1]!.total);
      expect(Date.parse(overTime[i]!.at)).toBeGreaterThan(Date.parse(overTime[i - 1]!.at));
    }
    expect(overTime.at(-1)!.total).toBe(issued);
  };
  const tiered = {
    mode: 'tiered' as const,
    asset: 'USDC',
    tiers: [
      { id: 'general', name: 'General', price: '1000', capacity: 50 },
      { id: 'vip', name: 'VIP', price: '5000', capacity: 5 },
      { id: 'press', name: 'Press', price: '3000', capacity: 5, hidden: true },
    ],
  };

  it('reports a free event: live tickets, every ticket issued over time, no money, a line per holder', async () => {
    const event = fixtures.anEvent(10);
    const empty = await report(event.eventId);
    expect(empty).toEqual({
      sales: {
        registrations: { total: 0, byTier: { general: 0 }, overTime: [] },
        revenue: [],
        refunds: { count: 0, amounts: [] },
        codes: [],
      },
      holders: [],
    });

    const [ada, bob, cyd] = [generateAgentKey(), generateAgentKey(), generateAgentKey()];
    for (const agent of [ada, bob, cyd]) await rsvp(agent, event.eventId);
    // A free ticket given back: no longer live, still issued, and its agent no holder.
    await ticketing.send(Tickets.release, { eventId: event.eventId }, bob.agentId);
    const { sales, holders } = await report(event.eventId);
    expect(sales).toMatchObject({
      registrations: { total: 2, byTier: { general: 2 } },
      revenue: [],
      refunds: { count: 0, amounts: [] },
      codes: [],
    });
    // A sale of a few seconds counts by the minute: one point, at now.
    expect(sales.registrations.overTime).toHaveLength(1);
    expect(Date.now() - Date.parse(sales.registrations.overTime[0]!.at)).toBeLessThan(60_000);
    await expectCurve(sales, event.eventId);
    expect(holders).toEqual([
      { agentId: ada.agentId, tierId: 'general', code: null, paid: '0', asset: null, refunded: '0' },
      { agentId: cyd.agentId, tierId: 'general', code: null, paid: '0', asset: null, refunded: '0' },
    ]);

    // Bob comes back: his new ticket is his line, after the others.
    await rsvp(bob, event.eventId);
    expect((await report(event.eventId)).holders.map((line) => line.agentId)).toEqual([
      ada.agentId,
      cyd.agentId,
      bob.agentId,
    ]);
  });

  it('counts over time in the smallest interval of the ladder that gives at most 100 points', async () => {
    const event = fixtures.anEvent(10);
    const [first, second] = [generateAgentKey(), generateAgentKey()];
    const { ticket } = ticketOf(await rsvp(first, event.eventId));
    const { ticket: last } = ticketOf(await rsvp(second, event.eventId));
    /** The first ticket issued `ms` before the second. */
    const backdate = (ms: number) =>
      ticketing.query(
        `UPDATE ticketing.tickets SET created_at = $3::timestamptz - $2 * interval '1 millisecond' WHERE id = $1`,
        [ticket.id, ms, last.createdAt],
      );

    // Three days and a half: 15 minutes would be 337 points, an hour 85 (the second ticket is in
    // the last: point k counts the tickets issued before the first + k hours).
    await backdate(3.5 * DAY);
    let { overTime } = (await report(event.eventId)).sales.registrations;
    expect(overTime).toHaveLength(85);
    expect(overTime.slice(0, 84).map((point) => point.total)).toEqual(Array(84).fill(1));
    expect(Date.parse(overTime[1]!.at) - Date.parse(overTime[0]!.at)).toBe(HOUR);
    expect(overTime.at(-1)!.total).toBe(2);
    expect(Date.now() - Date.parse(overTime.at(-1)!.at)).toBeLessThan(60_000);

    // Ninety minutes: by the minute, 91 points.
    await backdate(90 * 60_000);
    ({ overTime } = (await report(event.eventId)).sales.registrations);
    expect(overTime).toHaveLength(91);
    expect(Date.parse(overTime[1]!.at) - Date.parse(overTime[0]!.at)).toBe(60_000);

    // Two years: past the ladder's 700 days, in as many weeks as it takes (two: 53 points).
    await backdate(730 * DAY);
    ({ overTime } = (await report(event.eventId)).sales.registrations);
    expect(overTime).toHaveLength(53);
    expect(Date.parse(overTime[1]!.at) - Date.parse(overTime[0]!.at)).toBe(14 * DAY);
    await expectCurve((await report(event.eventId)).sales, event.eventId);
  });

  it('reports a paid event as the ledger has it: tiers, codes, revenue, and the refunds of its cancellation', async () => {
    const event = fixtures.anEvent(60, tiered);
    await create(event.eventId, { code: 'HALF', percentOff: 50, tierIds: ['general'] });
    await create(event.eventId, { code: 'PRESS', unlocksTierIds: ['press'], tierIds: ['press'] });
    const ada = await buy(event.eventId, 'vip');
    const bob = await buy(event.eventId, 'general', 'half');
    const cyd = await buy(event.eventId, 'general');

    const before = await report(event.eventId);
    expect(before.sales.registrations).toMatchObject({
      total: 3,
      byTier: { general: 2, vip: 1, press: 0 },
    });
    await expectCurve(before.sales, event.eventId);
    expect(before.sales.revenue).toEqual([{ asset: 'USDC', network: null, amount: '6500' }]);
    expect(before.sales.revenue).toEqual(await ledgerCredits(event.eventId));
    expect(before.sales.refunds).toEqual({ count: 0, amounts: [] });
    expect(before.sales.codes).toEqual([
      { code: 'HALF', uses: 1 },
      { code: 'PRESS', uses: 0 },
    ]);
    const line = (agent: AgentKey, tierId: string, code: string | null, paid: string, refunded = '0') => ({
      agentId: agent.agentId,
      tierId,
      code,
      paid,
      asset: 'USDC',
      refunded,
    });
    expect(before.holders).toEqual([
      line(ada.buyer, 'vip', null, '5000'),
      line(bob.buyer, 'general', 'HALF', '500'),
      line(cyd.buyer, 'general', null, '1000'),
    ]);

    // Cancelled: every ticket refunded on the ledger; the revenue stays what the tickets brought in.
    await ticketing.deliver(fixtures.cancelled(event));
    const after = await report(event.eventId);
    expect(after.sales.registrations).toMatchObject({ total: 0, byTier: { general: 0, vip: 0, press: 0 } });
    expect(after.sales.registrations.overTime.at(-1)!.total).toBe(3);
    expect(after.sales.revenue).toEqual(await ledgerCredits(event.eventId));
    expect(after.sales.refunds).toEqual({
      count: 3,
      amounts: [{ asset: 'USDC', network: null, amount: '6500' }],
    });
    expect(after.holders).toEqual([
      line(ada.buyer, 'vip', null, '5000', '5000'),
      line(bob.buyer, 'general', 'HALF', '500', '500'),
      line(cyd.buyer, 'general', null, '1000', '1000'),
    ]);

    // A ticket paid on chain, as a settled payment and the cancellation leave it (written here: the
    // service tier has no chain): its entries carry the network, and its refund is owed.
    const [network, mint, dee] = ['solana:test', 'MINT', generateAgentKey().agentId];
    const onChain = randomUUID();
    await ticketing.query(
      `INSERT INTO ticketing.tickets (id, event_id, tier_id, holder_id, status, price, asset, network, transaction, created_at, cancelled_at)
       VALUES ($1, $2, 'vip', $3, 'cancelled', 5000, $4, $5, 'tx-buy', now(), now())`,
      [onChain, event.eventId, dee, mint, network],
    );
    await ticketing.query(
      `INSERT INTO ticketing.ledger_entries (type, agent_id, amount, asset, event_id, ticket_id, counterparty_id, network, transaction)
       VALUES ('EVENT_TICKET', $3, -5000, $4, $1, $2, $5, $6, 'tx-buy'), ('EVENT_TICKET', $5, 5000, $4, $1, $2, $3, $6, 'tx-buy')`,
      [event.eventId, onChain, dee, mint, host.agentId, network],
    );
    await ticketing.query(
      `INSERT INTO ticketing.refunds (ticket_id, event_id, host_id, holder_id, amount, asset, network, created_at)
       VALUES ($1, $2, $3, $4, 5000, $5, $6, now())`,
      [onChain, event.eventId, host.agentId, dee, mint, network],
    );
    const owed = await report(event.eventId);
    expect(owed.sales.revenue).toEqual([
      { asset: mint, network, amount: '5000' },
      { asset: 'USDC', network: null, amount: '6500' },
    ]);
    expect(owed.sales.revenue).toEqual(await ledgerCredits(event.eventId));
    expect(owed.sales.refunds).toEqual({
      count: 4,
      amounts: [
        { asset: mint, network, amount: '5000' },
        { asset: 'USDC', network: null, amount: '6500' },
      ],
    });
    expect(owed.sales.registrations.overTime.at(-1)!.total).toBe(4);
    expect(owed.holders.at(-1)).toEqual({
      agentId: dee,
      tierId: 'vip',
      code: null,
      paid: '5000',
      asset: mint,
      refunded: '5000',
    });

    // The host pays it (PayRefund: `paid`, and the ledger's refund entries with the network): once.
    await ticketing.query(
      `UPDATE ticketing.refunds SET status = 'paid', payment = '{}', payment_key = $2, transaction = 'tx-refund', paid_at = now()
        WHERE ticket_id = $1`,
      [onChain, randomUUID()],
    );
    await ticketing.query(
      `INSERT INTO ticketing.ledger_entries (type, agent_id, amount, asset, event_id, ticket_id, counterparty_id, network, transaction)
       VALUES ('EVENT_TICKET_REFUND', $5, -5000, $4, $1, $2, $3, $6, 'tx-refund'),
              ('EVENT_TICKET_REFUND', $3, 5000, $4, $1, $2, $5, $6, 'tx-refund')`,
      [event.eventId, onChain, dee, mint, host.agentId, network],
    );
    const paid = await report(event.eventId);
    expect(paid.sales.refunds).toEqual(owed.sales.refunds);
    expect(paid.holders).toEqual(owed.holders);
  });

  it('is read by the host and moderators only', async () => {
    const event = fixtures.anEvent(10);
    const [stranger, moderator] = [generateAgentKey(), generateAgentKey()];
    await rsvp(stranger, event.eventId);
    expect((await refusalOf(report(event.eventId, stranger.agentId))).code).toBe('role.forbidden');
    expect((await refusalOf(report(event.eventId, moderator.agentId))).code).toBe('role.forbidden');
    await ticketing.deliver(
      fixtures.updated({ ...event, moderators: [moderator.agentId], version: event.version + 1 }),
    );
    expect((await report(event.eventId, moderator.agentId)).sales.registrations.total).toBe(1);
    expect((await refusalOf(report(event.eventId, stranger.agentId))).code).toBe('role.forbidden');
    expect((await refusalOf(report(randomUUID()))).code).toBe('event.not_found');
  });
});

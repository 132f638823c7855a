// The ticketing service on its own (the service tier: libs/testing/src/service.ts). The events
// service is not running: a stand-in answers Events.access (fixtures.ts), and domain events are
// delivered to ticketing's consumers directly.
import { randomUUID } from 'node:crypto';
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { DomainError, Inventory, TicketTopics, Tickets } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { encodePaymentHeader, signLedgerPayment } from '@townhall/x402';
import pg from 'pg';
import { paid, TicketingFixtures } from './fixtures.js';

describe('ticketing service', () => {
  const fixtures = new TicketingFixtures();
  const { host, anEvent, rsvp, funded, balanceOf, offerOf, payment } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true' });
  });
  afterAll(async () => {
    await ticketing?.stop();
  });

  it('issues a free ticket once, gives it back, and shows attendees to the host only', async () => {
    const event = anEvent(2);
    const guest = generateAgentKey();
    const first = await rsvp(guest, event.eventId);
    expect(first).toMatchObject({
      created: true,
      settlement: null,
      ticket: { holderId: guest.agentId, price: '0' },
    });
    const again = await rsvp(guest, event.eventId);
    expect(again).toMatchObject({ created: false, ticket: { id: first.ticket.id } });

    // The holder's own ticket for the event; anyone else holds none.
    expect(await ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId)).toEqual(
      first.ticket,
    );
    expect(
      (await refusalOf(ticketing.send(Tickets.held, { eventId: event.eventId }, host.agentId))).code,
    ).toBe('ticket.not_found');

    const list = await ticketing.send(Tickets.attendees, { eventId: event.eventId }, host.agentId);
    expect(list.items.map((ticket) => ticket.holderId)).toEqual([guest.agentId]);
    expect(
      (await refusalOf(ticketing.send(Tickets.attendees, { eventId: event.eventId }, guest.agentId))).code,
    ).toBe('role.forbidden');

    const released = await ticketing.send(Tickets.release, { eventId: event.eventId }, guest.agentId);
    expect(released.status).toBe('cancelled');
    expect(
      (await refusalOf(ticketing.send(Tickets.release, { eventId: event.eventId }, guest.agentId))).code,
    ).toBe('ticket.not_found');
    // Given back: the agent holds no ticket any more.
    expect(
      (await refusalOf(ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId))).code,
    ).toBe('ticket.not_found');
    const [row] = await ticketing.query<{ sold: number }>(
      `SELECT sold FROM ticketing.events WHERE event_id = $1`,
      [event.eventId],
    );
    expect(row!.sold).toBe(0);
    // The issue and the release went out as domain events, through the outbox.
    await waitFor('the domain events', async () =>
      [TicketTopics.issued, TicketTopics.cancelled].every((type) =>
        ticketing.published.some(
          (published) => published.type === type && published.subject === event.eventId,
        ),
      )
        ? true
        : undefined,
    );
  });

  it('sells a paid ticket for a ledger payment, once, however often the same payment is sent', async () => {
    const event = anEvent(10, paid('300'));
    const buyer = await funded('1000');
    const offer = await offerOf(buyer, event.eventId);
    expect(offer).toMatchObject({ maxAmountRequired: '300', asset: 'USDC', payTo: host.agentId });

    const header = payment(buyer, offer);
    const replies = await Promise.all(Array.from({ length: 8 }, () => rsvp(buyer, event.eventId, header)));
    expect(new Set(replies.map((reply) => reply.ticket.id)).size).toBe(1);
    expect(replies.filter((reply) => reply.created)).toHaveLength(1);
    expect(await balanceOf(buyer)).toBe('700');
    expect(await balanceOf(host)).toBe('300');
    const [debits] = await ticketing.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ticketing.ledger_entries WHERE event_id = $1 AND amount < 0`,
      [event.eventId],
    );
    expect(debits!.count).toBe(1);
    // A copy answers with the one settlement, or (once the ticket is held) with none.
    const settlements = new Set(replies.map((reply) => reply.settlement?.transaction ?? null));
    expect([...settlements].filter((transaction) => transaction !== null)).toHaveLength(1);
    expect(await footprint(event.eventId, [buyer, host])).toMatchObject({
      payments: 1,
      tickets: 1,
      entries: 2,
    });
    await ledgerHolds();
  });

  it('refuses a payment it cannot take, writing nothing', async () => {
    const event = anEvent(10, paid('500'));
    const poor = await funded('499');
    const offer = await offerOf(poor, event.eventId);
    expect((await refusalOf(rsvp(poor, event.eventId, payment(poor, offer)))).code).toBe(
      'payment.insufficient_funds',
    );
    const thief = await funded('1000');
    // Signed by the thief, for the poor agent's account.
    const signed = signLedgerPayment(thief, offer);
    const inner = signed.payload as { authorization: Record<string, string> };
    const forged = encodePaymentHeader({
      ...signed,
      payload: { ...inner, authorization: { ...inner.authorization, from: poor.agentId } },
    });
    expect((await refusalOf(rsvp(thief, event.eventId, forged))).code).toBe('payment.invalid');
    for (const garbage of ['not base64!', 'e30', 'x'.repeat(10_000)])
      expect((await refusalOf(rsvp(thief, event.eventId, garbage))).code).toBe('payment.invalid');
    expect(await balanceOf(poor)).toBe('499');
    expect(await balanceOf(thief)).toBe('1000');
    const [tickets] = await ticketing.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ticketing.tickets WHERE event_id = $1`,
      [event.eventId],
    );
    expect(tickets!.count).toBe(0);
  });

  it('sells exactly the seats there are when forty agents want five at once', async () => {
    const event = anEvent(5);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, () => rsvp(generateAgentKey(), event.eventId)),
    );
    const sold = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(sold).toHaveLength(5);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect((outcome.reason as DomainError).code).toBe('capacity.sold_out');
    const [row] = await ticketing.query<{ sold: number; active: number }>(
      `SELECT e.sold, (SELECT count(*)::int FROM ticketing.tickets t WHERE t.event_id = e.event_id AND t.status = 'active') AS active
       FROM ticketing.events e WHERE e.event_id = $1`,
      [event.eventId],
    );
    expect(row).toEqual({ sold: 5, active: 5 });
  });

  it('decides a capacity change next to the seats: never below what is sold', async () => {
    const event = anEvent(3);
    await Promise.all([generateAgentKey(), generateAgentKey()].map((guest) => rsvp(guest, event.eventId)));
    const change = (capacity: number, version: number) =>
      ticketing.send(
        Inventory.changeCapacity,
        { eventId: event.eventId, version, capacity, ticketing: { mode: 'free' } },
        host.agentId,
      );
    expect((await refusalOf(change(1, 2))).code).toBe('event.capacity_below_sold');
    expect(await change(2, 2)).toEqual({ eventId: event.eventId, applied: true });
    expect((await refusalOf(rsvp(generateAgentKey(), event.eventId))).code).toBe('capacity.sold_out');
    // An older version never overwrites a newer one.
    expect(await change(50, 1)).toEqual({ eventId: event.eventId, applied: false });
  });

  it('refunds every paid ticket of a cancelled event exactly once, even when the cancellation comes twice', async () => {
    const event = anEvent(10, paid('200'));
    const buyers = await Promise.all([funded('1000'), funded('1000'), funded('1000')]);
    const hostBefore = BigInt(await balanceOf(host));
    for (const buyer of buyers)
      await rsvp(buyer, event.eventId, payment(buyer, await offerOf(buyer, event.eventId)));
    expect(BigInt(await balanceOf(host)) - hostBefore).toBe(600n);

    const cancelled = fixtures.cancelled(event);
    await ticketing.deliver(cancelled);
    await ticketing.redeliver(cancelled); // as JetStream does when an acknowledgement was lost
    for (const buyer of buyers) expect(await balanceOf(buyer)).toBe('1000');
    expect(BigInt(await balanceOf(host))).toBe(hostBefore);
    const [refunds] = await ticketing.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET_REFUND' AND amount > 0`,
      [event.eventId],
    );
    expect(refunds!.count).toBe(3);
    expect((await refusalOf(rsvp(generateAgentKey(), event.eventId))).code).toBe('ticket.not_on_sale');
  });

  /** Everything a purchase could write for this event and these agents, and what it announced. */
  async function footprint(eventId: string, agents: AgentKey[]) {
    const [row] = await ticketing.query(
      `SELECT
         (SELECT count(*)::int FROM ticketing.payments WHERE event_id = $1) AS payments,
         (SELECT count(*)::int FROM ticketing.tickets WHERE event_id = $1) AS tickets,
         (SELECT count(*)::int FROM ticketing.ledger_entries WHERE event_id = $1) AS entries,
         (SELECT sold FROM ticketing.events WHERE event_id = $1) AS sold,
         (SELECT sum(sold)::int FROM ticketing.inventory WHERE event_id = $1) AS tier_sold,
         (SELECT json_object_agg(agent_id, amount::text) FROM ticketing.balances WHERE agent_id = ANY($2::text[])) AS balances`,
      [eventId, agents.map((agent) => agent.agentId)],
    );
    await ticketing.settled();
    const subjects = new Set([eventId, ...agents.map((agent) => agent.agentId)]);
    const announced = ticketing.published.filter((event) => subjects.has(event.subject)).length;
    return { ...row, announced };
  }
  /** The ledger's invariant: every balance together is exactly what the faucet put in. */
  async function ledgerHolds(): Promise<void> {
    const [sums] = await ticketing.query<{ balances: string; faucet: string }>(
      `SELECT (SELECT COALESCE(sum(amount), 0)::text FROM ticketing.balances) AS balances,
              (SELECT COALESCE(sum(amount), 0)::text FROM ticketing.ledger_entries WHERE type = 'FAUCET') AS faucet`,
    );
    expect(sums!.balances).toBe(sums!.faucet);
  }

  it('takes a paid ticket in two statements: the event, then ticketing.purchase', async () => {
    const event = anEvent(10, paid('100'));
    const buyer = await funded('1000');
    const header = payment(buyer, await offerOf(buyer, event.eventId));
    const { result, statements } = await ticketing.statementsDuring(() => rsvp(buyer, event.eventId, header));
    expect(result).toMatchObject({ created: true, settlement: { success: true, payer: buyer.agentId } });
    expect(statements).toHaveLength(2);
    expect(statements[1]).toMatch(/ticketing\.purchase/);
  });

  it("while a tier's sale is busy here, takes a paid ticket in one statement, on the event as last read; a changed event is read again", async () => {
    const event = anEvent(10, paid('100'));
    const buyers = await Promise.all(Array.from({ length: 4 }, () => funded('1000')));
    const offers = await Promise.all(buyers.map((buyer) => offerOf(buyer, event.eventId)));
    const [first, second, third, fourth] = buyers.map((buyer, n) => ({
      buyer,
      header: payment(buyer, offers[n]!),
    }));
    // The tier's seats, held by a transaction of the test's: a purchase waits there, in flight.
    const holder = new pg.Client({ connectionString: ticketing.database.url });
    await holder.connect();
    const waiting = async (count: number) =>
      waitFor(`${count} purchases waiting for the seats`, async () => {
        const [row] = await ticketing.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ~ 'ticketing.purchase'`,
        );
        return row!.n >= count || undefined;
      });
    /** `inFlight`'s purchase waits for the seats while `during` runs. */
    const busySale = async (
      inFlightBuyer: { buyer: AgentKey; header: string },
      during: () => Promise<void>,
    ) => {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM ticketing.inventory WHERE event_id = $1 FOR UPDATE', [event.eventId]);
      const inFlight = rsvp(inFlightBuyer.buyer, event.eventId, inFlightBuyer.header);
      await waiting(1);
      await during();
      await holder.query('COMMIT');
      expect((await inFlight).created).toBe(true);
    };
    const named = (statements: string[]) =>
      statements.map((sql) =>
        /ticketing\.purchase/.test(sql)
          ? 'purchase'
          : /ticketing\.sale|FROM ticketing\.events e/.test(sql)
            ? 'sale'
            : sql,
      );
    try {
      let during: Promise<{ statements: string[] }> | undefined;
      await busySale(first!, async () => {
        during = ticketing.statementsDuring(() => rsvp(second!.buyer, event.eventId, second!.header));
        await waiting(2);
      });
      expect(named((await during!).statements)).toEqual(['purchase']);

      // The event changed (a new version) after the last read: the purchase writes nothing, and
      // the sale is read and decided again.
      await busySale(third!, async () => {
        await ticketing.query('UPDATE ticketing.events SET version = version + 1 WHERE event_id = $1', [
          event.eventId,
        ]);
        during = ticketing.statementsDuring(() => rsvp(fourth!.buyer, event.eventId, fourth!.header));
        await waiting(2);
      });
      expect(named((await during!).statements)).toEqual(['purchase', 'sale', 'purchase']);
      const [row] = await ticketing.query<{ live: number }>(
        `SELECT count(*)::int AS live FROM ticketing.tickets WHERE event_id = $1 AND status = 'active'`,
        [event.eventId],
      );
      expect(row!.live).toBe(4);
      await ledgerHolds();
    } finally {
      await holder.end();
    }
  });

  it('refuses inside ticketing.purchase writing nothing: nonce reused, no funds, sold out, not on sale', async () => {
    const event = anEvent(1, paid('400'));
    const [rich, poor, late] = await Promise.all([funded('1000'), funded('399'), funded('1000')]);
    const everyone = [rich, poor, late, host];
    const offer = await offerOf(rich, event.eventId);
    const lateHeader = payment(late, offer); // signed while a seat was left

    const nothing = await footprint(event.eventId, everyone);
    expect((await refusalOf(rsvp(poor, event.eventId, payment(poor, offer)))).code).toBe(
      'payment.insufficient_funds',
    );
    expect(await footprint(event.eventId, everyone)).toEqual(nothing);

    // A nonce the payer spent on another event.
    const elsewhere = anEvent(5, paid('400'));
    const spent = signLedgerPayment(rich, await offerOf(rich, elsewhere.eventId));
    expect((await rsvp(rich, elsewhere.eventId, encodePaymentHeader(spent))).created).toBe(true);
    const { nonce } = (spent.payload as { authorization: { nonce: string } }).authorization;
    const unspent = await footprint(event.eventId, everyone);
    const reused = encodePaymentHeader(signLedgerPayment(rich, offer, { nonce }));
    expect((await refusalOf(rsvp(rich, event.eventId, reused))).code).toBe('payment.nonce_reused');
    expect(await footprint(event.eventId, everyone)).toEqual(unspent);

    const other = await funded('1000');
    await rsvp(other, event.eventId, payment(other, offer)); // the one seat
    const full = await footprint(event.eventId, [...everyone, other]);
    const soldOut = await refusalOf(rsvp(late, event.eventId, lateHeader));
    expect([soldOut.code, soldOut.message]).toEqual(['capacity.sold_out', 'No seat is left in tier general']);
    expect(await footprint(event.eventId, [...everyone, other])).toEqual(full);

    // The status changed after the service read the event: the function's own check refuses.
    const ended = anEvent(5, paid('400'));
    const buyer = await funded('1000');
    const header = payment(buyer, await offerOf(buyer, ended.eventId));
    const before = await footprint(ended.eventId, [buyer, host]);
    const call = (at: string) =>
      ticketing.query(
        `SELECT * FROM ticketing.purchase($1, $2, 'f', 'ledger:test', $3, 'general', $4, 400, 'USDC',
           gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), $5, '[]'::jsonb)`,
        [buyer.agentId, randomUUID(), ended.eventId, host.agentId, at],
      );
    await ticketing.query(`UPDATE ticketing.events SET status = 'ended' WHERE event_id = $1`, [
      ended.eventId,
    ]);
    await expect(call(new Date().toISOString())).rejects.toMatchObject({
      code: 'TH001',
      message: 'not_on_sale',
      detail: 'ended',
    });
    expect(await footprint(ended.eventId, [buyer, host])).toEqual(before);
    expect((await refusalOf(rsvp(buyer, ended.eventId, header))).code).toBe('ticket.not_on_sale');
    await ledgerHolds();
  });

  it('sells ten paid seats to sixty-four buyers racing, each paid once, the ledger whole', async () => {
    const event = anEvent(10, paid('250'));
    const buyers = await Promise.all(Array.from({ length: 64 }, () => funded('1000')));
    const offer = await offerOf(buyers[0]!, event.eventId);
    const hostBefore = BigInt(await balanceOf(host));
    const outcomes = await Promise.allSettled(
      buyers.map((buyer) => rsvp(buyer, event.eventId, payment(buyer, offer))),
    );
    const sold = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(sold).toHaveLength(10);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect((outcome.reason as DomainError).code).toBe('capacity.sold_out');
    const [row] = await ticketing.query(
      `SELECT e.sold,
         (SELECT sold FROM ticketing.inventory i WHERE i.event_id = e.event_id) AS tier_sold,
         (SELECT count(*)::int FROM ticketing.tickets t WHERE t.event_id = e.event_id AND t.status = 'active') AS live,
         (SELECT count(*)::int FROM ticketing.ledger_entries l WHERE l.event_id = e.event_id AND l.amount < 0) AS debits,
         (SELECT count(*)::int FROM ticketing.ledger_entries l WHERE l.event_id = e.event_id AND l.amount > 0) AS credits,
         (SELECT count(*)::int FROM ticketing.payments p WHERE p.event_id = e.event_id) AS payments
       FROM ticketing.events e WHERE e.event_id = $1`,
      [event.eventId],
    );
    expect(row).toEqual({ sold: 10, tier_sold: 10, live: 10, debits: 10, credits: 10, payments: 10 });
    expect(BigInt(await balanceOf(host)) - hostBefore).toBe(2500n);
    const spent = await Promise.all(buyers.map(balanceOf));
    expect(spent.filter((amount) => amount === '750')).toHaveLength(10);
    expect(spent.filter((amount) => amount === '1000')).toHaveLength(54);
    await ledgerHolds();
  });

  it('charges an agent who holds a ticket nothing, however many payments it sends at once', async () => {
    const event = anEvent(10, paid('100'));
    const buyer = await funded('1000');
    const offer = await offerOf(buyer, event.eventId);
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => rsvp(buyer, event.eventId, payment(buyer, offer))),
    );
    expect(new Set(replies.map((reply) => reply.ticket.id)).size).toBe(1);
    expect(replies.filter((reply) => reply.created)).toHaveLength(1);
    for (const reply of replies.filter((r) => !r.created)) expect(reply.settlement).toBeNull();
    const holding = await footprint(event.eventId, [buyer, host]);
    const again = await rsvp(buyer, event.eventId, payment(buyer, offer));
    expect(again).toMatchObject({ created: false, settlement: null, ticket: { id: replies[0]!.ticket.id } });
    expect(await footprint(event.eventId, [buyer, host])).toEqual(holding);
    expect(await balanceOf(buyer)).toBe('900');
  });
});

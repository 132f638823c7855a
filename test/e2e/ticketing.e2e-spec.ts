import type { EventFieldsInput, EventView, TicketView } from '@townhall/contracts';
import { TownhallError, type AgentClient, type RsvpTicketResult } from '@townhall/sdk';
import { DomainEventTap, Topology, problemOf, waitFor } from '@townhall/testing';
import {
  decodePaymentResponse,
  encodePaymentHeader,
  signLedgerPayment,
  type PaymentRequirements,
} from '@townhall/x402';
import pg from 'pg';

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Paid workshop',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 50,
    ...overrides,
  };
}

describe('tickets, x402 payments and the ledger', () => {
  let topology: Topology;
  let db: pg.Client;
  let host: AgentClient;

  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
    host = topology.client();
  });
  afterEach(async () => {
    // The ledger invariant, after every test: all balances together are what the faucet put in.
    const { rows } = await db.query<{ balances: string; faucet: string }>(
      `SELECT (SELECT COALESCE(sum(amount), 0) FROM ticketing.balances)::text AS balances,
              (SELECT COALESCE(sum(amount), 0) FROM ticketing.ledger_entries WHERE type = 'FAUCET')::text AS faucet`,
    );
    expect(rows[0]!.balances).toBe(rows[0]!.faucet);
  });
  afterAll(async () => {
    await db?.end();
    await topology?.stop();
  });

  /** The 402 answer for an RSVP without payment: the x402 requirements. */
  async function requirementsOf(
    buyer: AgentClient,
    eventId: string,
    tierId?: string,
  ): Promise<PaymentRequirements[]> {
    const error = await problemOf(
      buyer.request('POST', `/events/${eventId}/rsvp`, { body: tierId ? { tierId } : {} }),
    );
    expect(error.status).toBe(402);
    return error.problem['accepts'] as PaymentRequirements[];
  }

  function pay(buyer: AgentClient, eventId: string, header: string, tierId?: string) {
    return buyer.request<TicketView>('POST', `/events/${eventId}/rsvp`, {
      body: tierId ? { tierId } : {},
      headers: { 'x-payment': header },
    });
  }

  const balanceOf = async (agent: AgentClient, asset = 'USDC') =>
    (await agent.ledger.balance()).balances.find((b) => b.asset === asset)?.amount ?? '0';

  it('issues a free ticket at once, returns it again without a second one, and lets the holder give it back', async () => {
    const event = await host.events.create(anEvent({ capacity: 2 }));
    const guest = topology.client();
    const first = await guest.request<TicketView>('POST', `/events/${event.id}/rsvp`);
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({
      eventId: event.id,
      tierId: 'general',
      holderId: guest.agentId,
      status: 'active',
      price: '0',
    });
    const again = await guest.request<TicketView>('POST', `/events/${event.id}/rsvp`);
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    expect((await guest.tickets.mine()).items.map((t) => t.id)).toEqual([first.data.id]);
    // GET /events/{id}/rsvp: the caller's own ticket (a route added as a contract entry alone).
    expect((await guest.tickets.held(event.id)).id).toBe(first.data.id);
    expect(await problemOf(host.tickets.held(event.id))).toMatchObject({
      status: 404,
      code: 'ticket.not_found',
    });

    expect((await host.tickets.attendees(event.id)).items.map((t) => t.holderId)).toEqual([guest.agentId]);
    expect(await problemOf(guest.tickets.attendees(event.id))).toMatchObject({
      status: 403,
      code: 'role.forbidden',
    });

    // The events service counts tickets from ticketing's domain events.
    await waitFor('ticket count 1', async () =>
      (await host.events.get(event.id)).counts.ticketsSold['general'] === 1 ? true : undefined,
    );

    expect(await guest.tickets.release(event.id)).toMatchObject({ status: 'cancelled' });
    await waitFor('ticket count 0', async () =>
      (await host.events.get(event.id)).counts.ticketsSold['general'] === 0 ? true : undefined,
    );
    expect(await problemOf(guest.tickets.release(event.id))).toMatchObject({
      status: 404,
      code: 'ticket.not_found',
    });
  });

  it('serves the first RSVPs of a new event at once, while its domain event arrives: no deadlock, every one a ticket', async () => {
    // Ticketing learns of an event from its domain event or, if an RSVP comes first, by asking
    // the events service: here both, from several agents at once, on 20 fresh events.
    const agents = Array.from({ length: 16 }, () => topology.client());
    for (let round = 0; round < 20; round++) {
      const event = await host.events.create(anEvent({ capacity: 16 }));
      const answers = (await Promise.all(
        agents.map((agent) => agent.tickets.rsvp(event.id)),
      )) as RsvpTicketResult[];
      expect(answers.map((answer) => answer.ticket.status)).toEqual(agents.map(() => 'active'));
    }
  });

  it('answers a paid RSVP without payment with 402, the x402 v1 body and a PAYMENT-REQUIRED header', async () => {
    const event = await host.events.create(
      anEvent({
        ticketing: {
          mode: 'tiered',
          tiers: [
            { id: 'early', name: 'Early bird', price: '1000', capacity: 10 },
            { id: 'vip', name: 'VIP', price: '5000', capacity: 2 },
          ],
        },
      }),
    );
    const buyer = topology.client();
    const response = await fetch(`${topology.baseUrl}/events/${event.id}/rsvp`, { method: 'POST' });
    expect(response.status).toBe(401); // unsigned
    const error = await problemOf(buyer.request('POST', `/events/${event.id}/rsvp`));
    expect(error.status).toBe(402);
    expect(error.problem).toMatchObject({
      code: 'payment.required',
      x402Version: 1,
      error: expect.any(String),
    });
    const accepts = error.problem['accepts'] as PaymentRequirements[];
    expect(accepts).toHaveLength(2);
    expect(accepts[0]).toEqual({
      scheme: 'exact',
      network: 'ledger:development',
      maxAmountRequired: '1000',
      asset: 'USDC',
      payTo: host.agentId,
      resource: `${topology.baseUrl}/events/${event.id}/rsvp?tier=early`,
      description: expect.any(String),
      mimeType: 'application/json',
      maxTimeoutSeconds: 300,
      extra: { eventId: event.id, tierId: 'early' },
    });
    const header = error.headers.get('payment-required');
    const v2 = JSON.parse(Buffer.from(header!, 'base64').toString('utf8')) as {
      x402Version: number;
      accepts: unknown[];
    };
    expect(v2.x402Version).toBe(2);
    expect(v2.accepts).toHaveLength(2);
  });

  it('sells a seat for a signed payment: one transaction moving the money both ways with EVENT_TICKET entries', async () => {
    const event = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '2500' } }));
    const buyer = topology.client();
    await buyer.ledger.faucet('10000');
    const hostBefore = BigInt(await balanceOf(host));
    const [offer] = await requirementsOf(buyer, event.id);
    const response = await pay(buyer, event.id, encodePaymentHeader(signLedgerPayment(buyer.key, offer!)));
    expect(response.status).toBe(201);
    expect(response.data).toMatchObject({
      price: '2500',
      asset: 'USDC',
      holderId: buyer.agentId,
      status: 'active',
    });
    const settlement = decodePaymentResponse(response.headers.get('x-payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'ledger:development', payer: buyer.agentId });
    expect(response.headers.get('payment-response')).toBe(response.headers.get('x-payment-response'));

    expect(await balanceOf(buyer)).toBe('7500');
    expect(BigInt(await balanceOf(host)) - hostBefore).toBe(2500n);
    const entries = (await buyer.ledger.entries()).items;
    expect(entries.map((e) => [e.type, e.amount])).toEqual([
      ['FAUCET', '10000'],
      ['EVENT_TICKET', '-2500'],
    ]);
    expect(entries[1]).toMatchObject({
      id: settlement.transaction,
      counterpartyId: host.agentId,
      ticketId: response.data.id,
    });

    // The SDK pays by itself only when told how much it may spend.
    const other = topology.client();
    await other.ledger.faucet('3000');
    expect(await problemOf(other.tickets.rsvp(event.id))).toMatchObject({
      status: 402,
      code: 'payment.required',
    });
    expect(await problemOf(other.tickets.rsvp(event.id, { maxPrice: '2000' }))).toMatchObject({
      status: 402,
    });
    const bought = await other.tickets.rsvp(event.id, { maxPrice: '2500' });
    expect(bought).toMatchObject({ created: true, ticket: { price: '2500' }, payment: { success: true } });
    expect(await other.tickets.rsvp(event.id, { maxPrice: '2500' })).toMatchObject({
      created: false,
      payment: null,
    });
    expect(await balanceOf(other)).toBe('500');
  });

  it('sells exactly 5 seats to 200 funded agents racing for them; the rest get 409 at once and pay nothing', async () => {
    const event = await host.events.create(
      anEvent({
        capacity: 500,
        ticketing: { mode: 'tiered', tiers: [{ id: 'hot', name: 'Hot', price: '100', capacity: 5 }] },
      }),
    );
    const buyers = Array.from({ length: 200 }, () => topology.client());
    await Promise.all(buyers.map((buyer) => buyer.ledger.faucet('1000')));
    const [offer] = await requirementsOf(buyers[0]!, event.id, 'hot');
    /**
     * Every buyer pays for a hot seat at once: each request is signed when pay() returns (the SDK
     * signs before its first await), so the clock starts with all in flight and what is timed is
     * the service, not this process signing. Each answer with the ms it took.
     */
    const race = async (crowd: AgentClient[]) => {
      const sent = crowd.map((buyer) =>
        pay(buyer, event.id, encodePaymentHeader(signLedgerPayment(buyer.key, offer!)), 'hot'),
      );
      const start = performance.now();
      return Promise.all(
        sent.map((request) =>
          request.then(
            () => ({ refusal: undefined, ms: performance.now() - start }),
            (reason: TownhallError) => ({
              refusal: [reason.status, reason.code],
              ms: performance.now() - start,
            }),
          ),
        ),
      );
    };
    const p99 = (ms: number[]) => Math.round(ms.sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1]!);
    const results = await race(buyers);
    const refused = results.filter((result) => result.refusal);
    expect(results.filter((result) => !result.refusal)).toHaveLength(5);
    expect(refused.map((result) => result.refusal)).toEqual(Array(195).fill([409, 'capacity.sold_out']));

    // A sale that is over says so at once (issue [17] item 0): before, the losers queued for
    // ticketing's connections and the hot row, and on a slower machine most got 504 after 5 s.
    // "At once" on this machine, now: about as soon as the same crowd is refused once the sale is
    // over (the first read says sold out). Within 3 times that, or a second, whichever is more
    // (the race also carries the 5 purchases and their events; queued losers took 4 times as long).
    const losers = buyers.filter((_, index) => results[index]!.refusal);
    const after = await race(losers);
    expect(after.map((result) => result.refusal)).toEqual(Array(195).fill([409, 'capacity.sold_out']));
    const [racing, over] = [p99(refused.map((r) => r.ms)), p99(after.map((r) => r.ms))];
    process.stdout.write(
      `sellout race: the 195 refused in ${racing} ms at p99; again once sold out, ${over} ms\n`,
    );
    expect(racing).toBeLessThan(Math.max(1_000, 3 * over));
    const { rows } = await db.query<{ debits: number; tickets: number; sold: number }>(
      `SELECT (SELECT count(*) FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount < 0)::int AS debits,
              (SELECT count(*) FROM ticketing.tickets WHERE event_id = $1 AND status = 'active')::int AS tickets,
              (SELECT sold FROM ticketing.inventory WHERE event_id = $1 AND tier_id = 'hot') AS sold`,
      [event.id],
    );
    expect(rows[0]).toEqual({ debits: 5, tickets: 5, sold: 5 });
    const balances = await Promise.all(buyers.map((buyer) => balanceOf(buyer)));
    expect(balances.filter((b) => b === '900')).toHaveLength(5);
    expect(balances.filter((b) => b === '1000')).toHaveLength(195);
  });

  it('turns the same X-PAYMENT sent 20 times at once into one ticket and one charge', async () => {
    const event = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '700' } }));
    const buyer = topology.client();
    await buyer.ledger.faucet('5000');
    const [offer] = await requirementsOf(buyer, event.id);
    const header = encodePaymentHeader(signLedgerPayment(buyer.key, offer!));
    const results = await Promise.all(Array.from({ length: 20 }, () => pay(buyer, event.id, header)));
    expect(new Set(results.map((r) => r.data.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await balanceOf(buyer)).toBe('4300');
    // The same nonce with another payload (here: for another event) is a conflict.
    const nonce = (
      JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
        payload: { authorization: { nonce: string } };
      }
    ).payload.authorization.nonce;
    const other = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '700' } }));
    const [otherOffer] = await requirementsOf(buyer, other.id);
    const conflict = await problemOf(
      pay(buyer, other.id, encodePaymentHeader(signLedgerPayment(buyer.key, otherOffer!, { nonce }))),
    );
    expect(conflict).toMatchObject({ status: 409, code: 'payment.nonce_reused' });
    expect(await balanceOf(buyer)).toBe('4300');
  });

  it('refuses a payment for another event, tier, amount, payee or payer, expired, early or badly signed, moving no money', async () => {
    const event = await host.events.create(
      anEvent({
        ticketing: {
          mode: 'tiered',
          tiers: [
            { id: 'a', name: 'A', price: '100', capacity: 10 },
            { id: 'b', name: 'B', price: '200', capacity: 10 },
          ],
        },
      }),
    );
    const elsewhere = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '100' } }));
    const buyer = topology.client();
    const thief = topology.client();
    await buyer.ledger.faucet('1000');
    await thief.ledger.faucet('1000');
    const offers = await requirementsOf(buyer, event.id);
    const tierA = offers.find((o) => o.extra.tierId === 'a')!;
    const [elsewhereOffer] = await requirementsOf(buyer, elsewhere.id);
    const now = new Date();
    const cases: Array<[string, string, string | undefined, AgentClient, string]> = [
      [
        'another event',
        encodePaymentHeader(signLedgerPayment(buyer.key, elsewhereOffer!)),
        'a',
        buyer,
        'resource_mismatch',
      ],
      [
        'another tier',
        encodePaymentHeader(signLedgerPayment(buyer.key, tierA)),
        'b',
        buyer,
        'resource_mismatch',
      ],
      [
        'another amount',
        encodePaymentHeader(signLedgerPayment(buyer.key, { ...tierA, maxAmountRequired: '99' })),
        'a',
        buyer,
        'amount_mismatch',
      ],
      [
        'another payee',
        encodePaymentHeader(signLedgerPayment(buyer.key, { ...tierA, payTo: thief.agentId })),
        'a',
        buyer,
        'recipient_mismatch',
      ],
      [
        'another payer',
        encodePaymentHeader(signLedgerPayment(buyer.key, tierA)),
        'a',
        thief,
        'payer_mismatch',
      ],
      [
        'expired',
        encodePaymentHeader(
          signLedgerPayment(buyer.key, tierA, {
            now: new Date(now.getTime() - 3_600_000),
            validForSeconds: 60,
          }),
        ),
        'a',
        buyer,
        'expired',
      ],
      [
        'not yet valid',
        encodePaymentHeader(
          signLedgerPayment(buyer.key, tierA, { now: new Date(now.getTime() + 3_600_000) }),
        ),
        'a',
        buyer,
        'not_yet_valid',
      ],
    ];
    const tampered = JSON.parse(
      Buffer.from(encodePaymentHeader(signLedgerPayment(buyer.key, tierA)), 'base64').toString('utf8'),
    ) as {
      payload: { signature: string };
    };
    tampered.payload.signature =
      tampered.payload.signature.slice(0, -2) + (tampered.payload.signature.endsWith('11') ? '22' : '11');
    cases.push([
      'bad signature',
      Buffer.from(JSON.stringify(tampered)).toString('base64'),
      'a',
      buyer,
      'invalid_signature',
    ]);

    for (const [label, header, tierId, agent, reason] of cases) {
      const error = await problemOf(pay(agent, event.id, header, tierId));
      expect([label, error.status, error.code, error.problem['error']]).toEqual([
        label,
        402,
        'payment.invalid',
        reason,
      ]);
      expect(error.problem['accepts']).toHaveLength(2);
    }
    expect(await balanceOf(buyer)).toBe('1000');
    expect(await balanceOf(thief)).toBe('1000');
    expect((await host.tickets.attendees(event.id)).items).toEqual([]);
  });

  it('answers 402 insufficient_funds and moves nothing when the payer cannot cover the price', async () => {
    const event = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '5000' } }));
    const buyer = topology.client();
    await buyer.ledger.faucet('4999');
    const [offer] = await requirementsOf(buyer, event.id);
    const error = await problemOf(
      pay(buyer, event.id, encodePaymentHeader(signLedgerPayment(buyer.key, offer!))),
    );
    expect(error).toMatchObject({ status: 402, code: 'payment.insufficient_funds' });
    expect(error.problem['error']).toBe('insufficient_funds');
    expect(await balanceOf(buyer)).toBe('4999');
    expect((await host.tickets.attendees(event.id)).items).toEqual([]);
  });

  it('cancels every ticket and refunds each paid one exactly once, even when the cancellation is delivered twice', async () => {
    const tap = await DomainEventTap.start(topology.nats, ['townhall.event.cancelled']);
    try {
      const event = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '300' } }));
      const buyers = Array.from({ length: 3 }, () => topology.client());
      for (const buyer of buyers) {
        await buyer.ledger.faucet('1000');
        await buyer.tickets.rsvp(event.id, { maxPrice: '300' });
      }
      await host.events.cancel(event.id);
      await tap.waitFor('the cancellation', () => tap.about(event.id).length === 1);
      await waitFor('refunds', async () =>
        (await Promise.all(buyers.map((b) => balanceOf(b)))).every((b) => b === '1000') ? true : undefined,
      );

      // Deliver the same domain event again (a redelivery: same CloudEvent id, new stream message).
      // As the events service's relay would publish it again (only its NATS user may).
      const nats = await topology.connectNats('events');
      nats.publish('townhall.event.cancelled', JSON.stringify(tap.about(event.id)[0]));
      await nats.flush();
      await nats.close();
      await new Promise((resolve) => setTimeout(resolve, 1500));

      for (const buyer of buyers) {
        expect(await balanceOf(buyer)).toBe('1000');
        const tickets = (await buyer.tickets.mine()).items.filter((t) => t.eventId === event.id);
        expect(tickets.map((t) => t.status)).toEqual(['cancelled']);
      }
      const { rows } = await db.query<{ refunds: number }>(
        `SELECT count(*)::int AS refunds FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET_REFUND' AND amount > 0`,
        [event.id],
      );
      expect(rows[0]!.refunds).toBe(3);
      expect(await problemOf(topology.client().tickets.rsvp(event.id))).toMatchObject({
        status: 409,
        code: 'ticket.not_on_sale',
      });
    } finally {
      await tap.stop();
    }
  });

  it('RSVPs followers to the next free occurrence only, exactly once, never past capacity, catching up after an outage', async () => {
    const ticketing = topology.service('ticketing');
    await ticketing.stop();
    const roomy = await host.series.create({
      title: 'Weekly office hours',
      recurrence: { startsAt: '2027-06-01T16:00', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;COUNT=3' },
      template: { durationMinutes: 60, capacity: 10 },
    });
    const tiny = await host.series.create({
      title: 'One seat each',
      recurrence: { startsAt: '2027-07-01T16:00', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;COUNT=2' },
      template: { durationMinutes: 60, capacity: 1 },
    });
    const fan = topology.client();
    const rival = topology.client();
    await fan.series.follow(roomy.id);
    await fan.series.follow(roomy.id); // following twice changes nothing
    await fan.series.follow(tiny.id);
    await rival.series.follow(tiny.id);
    await topology.restartService('ticketing');

    const idsOf = async (seriesId: string) =>
      (await host.events.list({ seriesId })).items
        .sort((a: EventView, b: EventView) => a.startsAt.localeCompare(b.startsAt))
        .map((event: EventView) => event.id);
    const roomyIds = await idsOf(roomy.id);
    const tinyIds = await idsOf(tiny.id);
    const ticketsOf = async (agent: AgentClient, ids: string[]) =>
      (await agent.tickets.mine({ limit: 100 })).items.filter((t) => ids.includes(t.eventId));
    await waitFor(
      'follower tickets',
      async () => {
        const tinyTickets = (await ticketsOf(fan, tinyIds)).length + (await ticketsOf(rival, tinyIds)).length;
        return (await ticketsOf(fan, roomyIds)).length === 1 && tinyTickets === 1 ? true : undefined;
      },
      20_000,
    );
    // The next occurrence only: the later ones are open to everyone until they become the next.
    expect((await ticketsOf(fan, roomyIds)).map((t) => t.eventId)).toEqual([roomyIds[0]]);
    // One seat: it went to exactly one of the two followers, never to both.
    expect((await host.tickets.attendees(tinyIds[0]!)).items).toHaveLength(1);
    expect((await host.tickets.attendees(tinyIds[1]!)).items).toHaveLength(0);

    // Unfollowing stops future RSVPs; tickets already issued stay.
    await fan.series.unfollow(roomy.id);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await ticketsOf(fan, roomyIds)).toHaveLength(1);
  });
});

import { randomBytes } from 'node:crypto';
import type { TicketView } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { Topology, problemOf, TestFacilitator, waitFor } from '@townhall/testing';
import { decodePaymentResponse, type PaymentRequirements } from '@townhall/x402';
import pg from 'pg';

// Any x402 facilitator, for a network whose payments Townhall does not read itself (EVM here):
// the payload is the facilitator's to check. Solana `exact`, which Townhall does read (the payer
// binding), is paid for real in test/e2e/solana-payments.e2e-spec.ts.
const NETWORK = 'eip155:84532';
const TRANSACTION =
  '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

/** A v1 x402 payment for a generic facilitator: opaque to Townhall, checked by the facilitator. */
function chainPayment(): string {
  const payload = {
    x402Version: 1,
    scheme: 'exact',
    network: NETWORK,
    // Each payment its own: one payment holds at most one seat (settlements_one_live_per_payment).
    payload: { transaction: randomBytes(24).toString('base64') },
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

describe('paid RSVP through an x402 facilitator over HTTP', () => {
  let facilitator: TestFacilitator;
  let topology: Topology;
  let db: pg.Client;
  let host: AgentClient;

  beforeAll(async () => {
    facilitator = await TestFacilitator.start({ payer: 'chain-payer', transaction: TRANSACTION });
    topology = await Topology.start({
      serviceEnv: {
        ticketing: {
          X402_FACILITATOR: 'http',
          X402_FACILITATOR_URL: facilitator.url,
          X402_NETWORK: NETWORK,
          // Short, so that the tests below see the timeout, and the payments asked again, quickly.
          X402_FACILITATOR_TIMEOUT_MS: '500',
          SETTLEMENT_RETRY_INTERVAL_MS: '200',
        },
      },
    });
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
    host = topology.client();
  });
  afterEach(() => facilitator.reset());
  afterAll(async () => {
    await db?.end();
    await topology?.stop();
    await facilitator?.stop();
  });

  async function oneSeatEvent(): Promise<string> {
    const startsAt = new Date(Date.now() + 86_400_000);
    const event = await host.events.create({
      title: 'One seat, paid on chain',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
      timezone: 'UTC',
      capacity: 1,
      ticketing: { mode: 'single', price: '1000000', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
    });
    return event.id;
  }

  const pay = (buyer: AgentClient, eventId: string) =>
    buyer.request<TicketView>('POST', `/events/${eventId}/rsvp`, {
      headers: { 'x-payment': chainPayment() },
    });

  const sold = async (eventId: string) =>
    (await db.query<{ sold: number }>('SELECT sold FROM ticketing.inventory WHERE event_id = $1', [eventId]))
      .rows[0]!.sold;

  it('asks for payment on the facilitator network, then verifies and settles with it', async () => {
    const eventId = await oneSeatEvent();
    const buyer = topology.client();
    const required = await problemOf(buyer.request('POST', `/events/${eventId}/rsvp`));
    expect(required.status).toBe(402);
    expect((required.problem['accepts'] as PaymentRequirements[])[0]).toMatchObject({
      network: NETWORK,
      payTo: host.agentId,
    });

    const paid = await pay(buyer, eventId);
    expect(paid.status).toBe(201);
    expect(paid.data).toMatchObject({ status: 'active', price: '1000000', holderId: buyer.agentId });
    expect(decodePaymentResponse(paid.headers.get('x-payment-response')!)).toMatchObject({
      success: true,
      transaction: TRANSACTION,
      network: NETWORK,
    });
    expect(facilitator.received.map((request) => request.path)).toEqual(['/verify', '/settle']);
    expect(await sold(eventId)).toBe(1);
  });

  it('releases the reserved seat when settlement fails (success: false), so the next buyer gets it', async () => {
    const eventId = await oneSeatEvent();
    facilitator.mode = 'refuse-settle';
    const unlucky = topology.client();
    const refused = await problemOf(pay(unlucky, eventId));
    expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
    expect(refused.problem['error']).toBe('transaction_failed');
    expect(await sold(eventId)).toBe(0);
    expect((await unlucky.tickets.mine()).items.filter((t) => t.status === 'active')).toEqual([]);

    facilitator.mode = 'ok';
    expect((await pay(topology.client(), eventId)).status).toBe(201);
    expect(await sold(eventId)).toBe(1);
  });

  it('takes no seat when the facilitator refuses the payment at /verify', async () => {
    const eventId = await oneSeatEvent();
    facilitator.mode = 'refuse';
    const refused = await problemOf(pay(topology.client(), eventId));
    expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
    expect(facilitator.received.map((request) => request.path)).toEqual(['/verify']);
    expect(await sold(eventId)).toBe(0);
  });

  /** The settlement row of the buyer's ticket for the event. */
  const settlementOf = async (eventId: string, holderId: string) =>
    (
      await db.query<{
        status: string;
        attempts: number;
        transaction: string | null;
        last_error: string | null;
      }>(
        `SELECT s.status, s.attempts, s.transaction, s.last_error FROM ticketing.settlements s
           JOIN ticketing.tickets t ON t.id = s.ticket_id WHERE t.event_id = $1 AND t.holder_id = $2`,
        [eventId, holderId],
      )
    ).rows;
  const issuedEvents = async (ticketId: string) =>
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ticketing.outbox WHERE type = 'townhall.ticket.issued' AND payload->'data'->>'id' = $1`,
        [ticketId],
      )
    ).rows[0]!.n;
  const heldBy = (buyer: AgentClient, eventId: string) =>
    buyer.request<TicketView>('GET', `/events/${eventId}/rsvp`).then(
      (answer) => answer.data.status,
      (error: unknown) => (error as { code?: string }).code,
    );

  it('a settlement answered after the timeout: 202 pending with the seat held, then issued once the facilitator is asked again', async () => {
    const eventId = await oneSeatEvent();
    facilitator.mode = 'settle-late';
    facilitator.lateMs = 1_500;
    const buyer = topology.client();
    const pending = await pay(buyer, eventId);
    expect(pending.status).toBe(202);
    expect(pending.headers.get('location')).toBe(`/events/${eventId}/rsvp`);
    expect(pending.data).toMatchObject({ status: 'pending', holderId: buyer.agentId });
    expect(await sold(eventId)).toBe(1); // the seat is held: nobody else can take it
    expect(await problemOf(pay(topology.client(), eventId))).toMatchObject({
      status: 409,
      code: 'capacity.sold_out',
    });
    // Paying again while it settles charges nothing: the pending ticket is the answer.
    const again = await pay(buyer, eventId);
    expect(again.status).toBe(200);
    expect(again.data).toMatchObject({ id: pending.data.id, status: 'pending' });
    expect(facilitator.received.filter((request) => request.path === '/verify')).toHaveLength(1);

    await waitFor('the ticket issued', async () =>
      (await heldBy(buyer, eventId)) === 'active' ? true : undefined,
    );
    expect(facilitator.settled.size).toBe(1); // settled once, however often it was asked
    const [settlement] = await settlementOf(eventId, buyer.agentId);
    expect(settlement).toMatchObject({ status: 'settled', transaction: TRANSACTION });
    expect(settlement!.attempts).toBeGreaterThanOrEqual(2);
    expect(await sold(eventId)).toBe(1);
    expect(await issuedEvents(pending.data.id)).toBe(1);
    const held = await pay(buyer, eventId);
    expect(held.status).toBe(200);
    expect(held.data).toMatchObject({ id: pending.data.id, status: 'active' });
  });

  it('a payment the facilitator cannot answer for stays pending, and is voided (the seat given back) once it refuses it', async () => {
    const eventId = await oneSeatEvent();
    facilitator.mode = 'settle-error500';
    const buyer = topology.client();
    const pending = await pay(buyer, eventId);
    expect(pending.status).toBe(202);
    await waitFor('a second attempt', async () =>
      ((await settlementOf(eventId, buyer.agentId))[0]?.attempts ?? 0) >= 2 ? true : undefined,
    );
    expect(await heldBy(buyer, eventId)).toBe('pending');
    expect((await settlementOf(eventId, buyer.agentId))[0]).toMatchObject({ status: 'settling' });

    facilitator.mode = 'refuse-settle';
    await waitFor('the payment voided', async () =>
      (await heldBy(buyer, eventId)) === 'ticket.not_found' ? true : undefined,
    );
    expect((await settlementOf(eventId, buyer.agentId))[0]).toMatchObject({
      status: 'voided',
      transaction: null,
      last_error: expect.stringMatching(/^transaction_failed/) as unknown as string,
    });
    expect(await sold(eventId)).toBe(0);
    expect(facilitator.settled.size).toBe(0);
    expect(await issuedEvents(pending.data.id)).toBe(0);
    facilitator.mode = 'ok';
    expect((await pay(topology.client(), eventId)).status).toBe(201);
  });

  it('a payment settling when ticketing is killed (-9) is concluded by the service started again', async () => {
    const eventId = await oneSeatEvent();
    facilitator.mode = 'settle-error500';
    const buyer = topology.client();
    expect((await pay(buyer, eventId)).status).toBe(202);
    await topology.service('ticketing').kill();
    facilitator.mode = 'ok';
    await topology.restartService('ticketing');
    await waitFor('the ticket issued', async () =>
      (await heldBy(buyer, eventId)) === 'active' ? true : undefined,
    );
    expect(facilitator.settled.size).toBe(1);
    expect((await settlementOf(eventId, buyer.agentId))[0]).toMatchObject({ status: 'settled' });
    expect(await sold(eventId)).toBe(1);
  });
});

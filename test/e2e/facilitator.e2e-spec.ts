import type { TicketView } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { Topology, problemOf, TestFacilitator } from '@townhall/testing';
import { decodePaymentResponse, type PaymentRequirements } from '@townhall/x402';
import pg from 'pg';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const TRANSACTION =
  '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

/** A v1 x402 payment for a chain facilitator: opaque to Townhall, checked by the facilitator. */
function chainPayment(): string {
  const payload = {
    x402Version: 1,
    scheme: 'exact',
    network: SOLANA,
    payload: { transaction: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAA' },
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
        ticketing: { X402_FACILITATOR: 'http', X402_FACILITATOR_URL: facilitator.url, X402_NETWORK: SOLANA },
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
      network: SOLANA,
      payTo: host.agentId,
    });

    const paid = await pay(buyer, eventId);
    expect(paid.status).toBe(201);
    expect(paid.data).toMatchObject({ status: 'active', price: '1000000', holderId: buyer.agentId });
    expect(decodePaymentResponse(paid.headers.get('x-payment-response')!)).toMatchObject({
      success: true,
      transaction: TRANSACTION,
      network: SOLANA,
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
});

// Reconciliation where payments go through an x402 facilitator, raced by three replicas of
// ticketing on one database, as on a cluster: each pass of each replica leases the ticket payments
// and the refund payments it asks about (its sub-select locks them, FOR UPDATE SKIP LOCKED, and
// the UPDATE moves their next attempt out), so a payment is asked about by one replica per attempt
// and concluded once. Without the lock the tests fail (each payment asked up to three times).
import { randomBytes } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { RefundTopics, TicketTopics } from '@townhall/contracts';
import { TestFacilitator, waitFor } from '@townhall/testing';
import type { ServiceHarness } from '@townhall/testing/service';
import pg from 'pg';
import { paid, TicketingFixtures } from './fixtures.js';

const NETWORK = 'eip155:84532';
const TRANSACTION =
  '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const PAYMENTS = 20;
/** Rounds in which every payment is due at once and the facilitator still fails /settle. */
const FAILED_ROUNDS = 3;

/** A v1 x402 payment, opaque to Townhall on this network; `proof` tells the payments apart. */
function chainPayment(proof: string): string {
  const payload = { x402Version: 1, scheme: 'exact', network: NETWORK, payload: { transaction: proof } };
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

describe('ticketing: settlement reconciliation on three replicas', () => {
  const fixtures = new TicketingFixtures();
  let facilitator: TestFacilitator;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    facilitator = await TestFacilitator.start({
      payer: 'chain-payer',
      transaction: TRANSACTION,
      // A refund's requirements name the facilitator's fee payer (FeePayer asks GET /supported).
      supported: {
        kinds: [
          {
            x402Version: 1,
            scheme: 'exact',
            network: NETWORK,
            extra: { feePayer: generateAgentKey().agentId },
          },
        ],
      },
    });
    ticketing = await fixtures.start({
      X402_FACILITATOR: 'http',
      X402_FACILITATOR_URL: facilitator.url,
      X402_NETWORK: NETWORK,
      // A ceiling, never reached here (the facilitator answers at once): twenty purchases at once
      // on three replicas of a loaded CI machine took more than 500 ms to verify.
      X402_FACILITATOR_TIMEOUT_MS: '5000',
      // Each replica passes every 100 ms: three of them meet at every payment that falls due.
      SETTLEMENT_RETRY_INTERVAL_MS: '100',
    });
    await ticketing.startReplica();
    await ticketing.startReplica();
  });
  afterAll(async () => {
    await ticketing?.stop();
    await facilitator?.stop();
  });

  const settlements = (ids: string[]) =>
    ticketing.query<{ ticket_id: string; status: string; attempts: number; proof: string }>(
      `SELECT ticket_id, status, attempts, payment->'payload'->>'transaction' AS proof
         FROM ticketing.settlements WHERE ticket_id = ANY($1::uuid[])`,
      [ids],
    );
  /** The facilitator's /settle calls for the payment with `proof`. */
  const settleCalls = (proof: string) =>
    facilitator.received.filter(
      (request) =>
        request.path === '/settle' &&
        (request.body.paymentPayload as { payload?: { transaction?: string } }).payload?.transaction ===
          proof,
    ).length;
  /**
   * Makes every open payment of `ids` (ticket ids for settlements, refund ids for refunds) fall
   * due at once, a moment from now, while a transaction of the test holds their rows: every
   * replica's pass in that time finds them due, and a lease that takes no row lock would wait for
   * the holder at its UPDATE and then lease them again after another replica had (each replica
   * asking the facilitator). A lease that locks them re-reads them when the holder lets go, and
   * finds them leased.
   */
  const dueNow = async (table: 'settlements' | 'refunds', ids: string[]) => {
    const open = table === 'settlements' ? `status = 'settling' AND ticket_id` : `status = 'paying' AND id`;
    await ticketing.query(
      `UPDATE ticketing.${table} SET next_attempt_at = now() + interval '300 milliseconds'
        WHERE ${open} = ANY($1::uuid[])`,
      [ids],
    );
    const client = new pg.Client({ connectionString: ticketing.database.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ticketing.${table} WHERE ${open} = ANY($1::uuid[]) FOR UPDATE`, [
        ids,
      ]);
      // Due after 300 ms; held 400 ms beyond that: some four passes of each replica meet here.
      await new Promise((resolve) => setTimeout(resolve, 700));
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
  };

  it('asks the facilitator once per attempt and concludes each payment once, whichever replica takes it', async () => {
    facilitator.mode = 'settle-error500';
    const bought = await Promise.all(
      Array.from({ length: PAYMENTS }, async () => {
        const event = fixtures.anEvent(1, paid('1000000'));
        const proof = randomBytes(24).toString('base64');
        const { ticket } = await fixtures.rsvp(generateAgentKey(), event.eventId, chainPayment(proof));
        expect(ticket.status).toBe('pending');
        return { ticketId: ticket.id, eventId: event.eventId, proof };
      }),
    );
    const ids = bought.map((purchase) => purchase.ticketId);

    // Each round, every payment falls due at once on all three replicas; the round ends when each
    // has been asked about again (and answered 500), so the next one starts from a quiet table.
    for (let round = 2; round <= 1 + FAILED_ROUNDS; round++) {
      await dueNow('settlements', ids);
      await waitFor(`attempt ${round} at every payment`, async () =>
        (await settlements(ids)).every((row) => row.attempts >= round && settleCalls(row.proof) >= round)
          ? true
          : undefined,
      );
      // One lease per payment and round: whichever replica took it, the others skipped it.
      for (const row of await settlements(ids)) {
        expect(row).toMatchObject({ status: 'settling', attempts: round });
        expect(settleCalls(row.proof)).toBe(round);
      }
    }
    facilitator.mode = 'ok';
    await dueNow('settlements', ids);
    await waitFor('every payment settled', async () =>
      (await settlements(ids)).every((row) => row.status === 'settled') ? true : undefined,
    );

    // Settled once each, asked exactly once per attempt: the purchase's own, then one per round.
    expect(facilitator.settled.size).toBe(PAYMENTS);
    for (const row of await settlements(ids)) {
      expect(row.attempts).toBe(2 + FAILED_ROUNDS);
      expect(settleCalls(row.proof)).toBe(row.attempts);
    }
    // One ticket issued per payment, announced once, whichever replica concluded it.
    await waitFor('every ticket announced', async () =>
      ids.every((id) => announced(TicketTopics.issued, id) === 1) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { ticketId, eventId } of bought) {
      expect(announced(TicketTopics.issued, ticketId)).toBe(1);
      const [seats] = await ticketing.query<{ sold: number; tickets: number }>(
        `SELECT e.sold, (SELECT count(*)::int FROM ticketing.tickets t
                          WHERE t.event_id = e.event_id AND t.status = 'active') AS tickets
           FROM ticketing.events e WHERE e.event_id = $1`,
        [eventId],
      );
      expect(seats).toEqual({ sold: 1, tickets: 1 });
    }
  });

  it('pays each refund once, asked once per attempt, whichever replica takes it', async () => {
    facilitator.reset();
    const bought = await Promise.all(
      Array.from({ length: PAYMENTS }, async () => {
        const event = fixtures.anEvent(1, paid('1000000'));
        const holder = generateAgentKey();
        const { ticket } = await fixtures.rsvp(
          holder,
          event.eventId,
          chainPayment(randomBytes(24).toString('base64')),
        );
        expect(ticket.status).toBe('active');
        return ticket.id;
      }),
    );
    // Each ticket's refund, paid by the host and left open by the facilitator, as PayRefund.pay
    // leaves one (`paying`, its payment kept); each payment is told apart by its `transaction`.
    const refunds = await ticketing.query<{
      id: string;
      ticket_id: string;
      holder_id: string;
      proof: string;
    }>(
      `INSERT INTO ticketing.refunds (ticket_id, event_id, host_id, holder_id, amount, asset, network, status,
                                      payment, payment_key, attempts, next_attempt_at, created_at)
       SELECT t.id, t.event_id, $2, t.holder_id, t.price, t.asset, $3, 'paying',
              jsonb_build_object('x402Version', 1, 'scheme', 'exact', 'network', $3::text,
                                 'payload', jsonb_build_object('transaction', 'refund-' || t.id)),
              'refund-' || t.id, 0, now() + interval '1 hour', now()
         FROM ticketing.tickets t WHERE t.id = ANY($1::uuid[])
       RETURNING id, ticket_id, holder_id, payment->'payload'->>'transaction' AS proof`,
      [bought, fixtures.host.agentId, NETWORK],
    );
    expect(refunds).toHaveLength(PAYMENTS);
    const ids = refunds.map((refund) => refund.id);
    const state = () =>
      ticketing.query<{ id: string; status: string; attempts: number; proof: string }>(
        `SELECT id, status, attempts, payment->'payload'->>'transaction' AS proof
           FROM ticketing.refunds WHERE id = ANY($1::uuid[])`,
        [ids],
      );

    facilitator.mode = 'settle-error500';
    for (let round = 1; round <= FAILED_ROUNDS; round++) {
      await dueNow('refunds', ids);
      await waitFor(`attempt ${round} at every refund`, async () =>
        (await state()).every((row) => row.attempts >= round && settleCalls(row.proof) >= round)
          ? true
          : undefined,
      );
      for (const row of await state()) {
        expect(row).toMatchObject({ status: 'paying', attempts: round });
        expect(settleCalls(row.proof)).toBe(round);
      }
    }
    facilitator.mode = 'ok';
    await dueNow('refunds', ids);
    await waitFor('every refund paid', async () =>
      (await state()).every((row) => row.status === 'paid') ? true : undefined,
    );

    for (const row of await state()) {
      expect(row.attempts).toBe(1 + FAILED_ROUNDS);
      expect(settleCalls(row.proof)).toBe(row.attempts);
    }
    expect([...facilitator.settled.keys()].filter((payment) => payment.includes('refund-'))).toHaveLength(
      PAYMENTS,
    );
    // The ledger records each refund once (the host's debit, the holder's credit), and
    // townhall.refund.paid announces it once, whichever replica concluded it.
    const entries = await ticketing.query<{ ticket_id: string; agent_id: string; amount: string }>(
      `SELECT ticket_id, agent_id, amount::text AS amount FROM ticketing.ledger_entries
        WHERE type = 'EVENT_TICKET_REFUND' AND ticket_id = ANY($1::uuid[]) ORDER BY ticket_id, amount`,
      [bought],
    );
    expect(entries).toEqual(
      [...refunds]
        .sort((a, b) => (a.ticket_id < b.ticket_id ? -1 : 1))
        .flatMap((refund) => [
          { ticket_id: refund.ticket_id, agent_id: fixtures.host.agentId, amount: '-1000000' },
          { ticket_id: refund.ticket_id, agent_id: refund.holder_id, amount: '1000000' },
        ]),
    );
    await waitFor('every refund announced', async () =>
      ids.every((id) => announced(RefundTopics.paid, id) === 1) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const id of ids) expect(announced(RefundTopics.paid, id)).toBe(1);
  });

  /** How many times `type` was announced of the ticket or refund `id`. */
  const announced = (type: string, id: string) =>
    ticketing.published.filter((event) => event.type === type && (event.data as { id?: string }).id === id)
      .length;
});

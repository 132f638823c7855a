// Reconciliation where payments go through an x402 facilitator, raced by three replicas of
// ticketing on one database, as on a cluster: each pass of each replica leases the ticket payments
// and the refund payments it asks about (its sub-select locks them, FOR UPDATE SKIP LOCKED, and
// the UPDATE moves their next attempt out), so a payment is asked about by one replica per attempt
// and concluded once. Without the lock the tests fail (each payment asked up to three times).
// The payments are real `exact` transfers on a local SVM, signed by the buyer's (or the host's)
// key, through the official facilitator over HTTP. On Solana, a look at the chain that stops at its
// bound saves where it stopped, and whichever replica looks next goes on from there.
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { Refunds, RefundTopics, TicketTopics, type EventAccess } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import type { ServiceHarness } from '@townhall/testing/service';
import {
  pushTransfers,
  signTransfer,
  startLocalSvm,
  SvmFacilitatorServer,
  type LocalSvm,
} from '@townhall/testing/solana';
import { encodePaymentHeader, type PaymentPayload } from '@townhall/x402';
import { readExactSvmTransfer } from '@townhall/x402/svm';
import pg from 'pg';
import { paid, TicketingFixtures } from './fixtures.js';

/**
 * Ticketing on three replicas of one database, paid through the official facilitator over HTTP
 * on a local SVM of its own: what both describes below run on. Each replica passes every 100 ms,
 * so the three meet at every payment that falls due.
 */
async function threeReplicasOnSolana(
  fixtures: TicketingFixtures,
  {
    blockhashLifetimeMs,
    facilitatorTimeoutMs,
  }: { blockhashLifetimeMs: number; facilitatorTimeoutMs: number },
): Promise<{
  svm: LocalSvm;
  facilitator: SvmFacilitatorServer;
  ticketing: ServiceHarness;
  stop(): Promise<void>;
}> {
  const svm = await startLocalSvm({ blockhashLifetimeMs });
  const facilitator = await SvmFacilitatorServer.start(svm.chain);
  const ticketing = await fixtures.start({
    X402_FACILITATOR: 'http',
    X402_FACILITATOR_URL: facilitator.url,
    X402_NETWORK: svm.chain.network,
    X402_RPC_URL: svm.rpcUrl,
    X402_FACILITATOR_TIMEOUT_MS: String(facilitatorTimeoutMs),
    SETTLEMENT_RETRY_INTERVAL_MS: '100',
  });
  await ticketing.startReplica();
  await ticketing.startReplica();
  return {
    svm,
    facilitator,
    ticketing,
    stop: async () => {
      await ticketing.stop();
      await facilitator.stop();
      await svm.stop();
    },
  };
}

const PAYMENTS = 20;
/** Rounds in which every payment is due at once and the facilitator still settles none. */
const FAILED_ROUNDS = 3;

describe('ticketing: settlement reconciliation on three replicas', () => {
  const fixtures = new TicketingFixtures();
  const PRICE = 1_000_000n;
  /** What each buyer holds on the chain: the price, and as much again. */
  const FUNDS = 2n * PRICE;
  let svm: LocalSvm;
  let facilitator: SvmFacilitatorServer;
  let ticketing: ServiceHarness;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ svm, facilitator, ticketing, stop } = await threeReplicasOnSolana(fixtures, {
      // Each payment must still be able to land when the facilitator at last sends it, after every
      // failed round: its blockhash outlives the test. (While it is valid and nothing landed, the
      // chain cannot decide, and each attempt asks the facilitator.)
      blockhashLifetimeMs: 300_000,
      // A ceiling, never reached here (the facilitator answers at once): twenty purchases at once
      // on three replicas of a loaded CI machine took more than 500 ms to verify.
      facilitatorTimeoutMs: 5_000,
    }));
    await svm.chain.ensureTokenAccount(fixtures.host.agentId);
  });
  afterAll(() => stop?.());

  /**
   * A buyer with FUNDS on the chain pays for a one-seat event of the host's with its own key (the
   * official client's transfer, to the 402's payTo with its memo): the RSVP's answer.
   */
  async function purchase(): Promise<{
    event: EventAccess;
    buyer: AgentKey;
    payment: PaymentPayload;
    ticket: { id: string; status: string };
  }> {
    const event = fixtures.anEvent(1, paid(PRICE.toString()));
    const buyer = generateAgentKey();
    await svm.chain.faucet(buyer.agentId, FUNDS);
    const offer = await fixtures.offerOf(buyer, event.eventId);
    const payment = await signTransfer(svm.chain, svm.rpcUrl, buyer, offer.payTo, {
      amount: PRICE,
      memo: String(offer.extra['memo']),
    });
    const { ticket } = await fixtures.rsvp(buyer, event.eventId, encodePaymentHeader(payment));
    return { event, buyer, payment, ticket };
  }

  const settlements = (ids: string[]) =>
    ticketing.query<{ ticket_id: string; status: string; attempts: number; transaction: string | null }>(
      `SELECT ticket_id, status, attempts, transaction FROM ticketing.settlements WHERE ticket_id = ANY($1::uuid[])`,
      [ids],
    );
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
    // The facilitator answers at once a failure no list knows, and sends nothing: each payment
    // stays open (on Solana only a refusal known to come before sending decides), and since
    // nothing landed and its blockhash is valid, every attempt asks the facilitator again.
    facilitator.mode = 'unknown-unsent';
    const bought = await Promise.all(
      Array.from({ length: PAYMENTS }, async () => {
        const { event, buyer, payment, ticket } = await purchase();
        expect(ticket.status).toBe('pending');
        return { ticketId: ticket.id, eventId: event.eventId, buyer, payment };
      }),
    );
    const ids = bought.map((entry) => entry.ticketId);
    const paymentOf = new Map(bought.map((entry) => [entry.ticketId, entry.payment]));
    /** The facilitator's /settle requests for the payment of `ticketId`. */
    const settleCalls = (ticketId: string) => facilitator.settlesOf(paymentOf.get(ticketId)!);
    const hostBefore = svm.chain.tokenBalance(fixtures.host.agentId);

    // Each round, every payment falls due at once on all three replicas; the round ends when each
    // has been asked about again (and left open), so the next one starts from a quiet table.
    for (let round = 2; round <= 1 + FAILED_ROUNDS; round++) {
      await dueNow('settlements', ids);
      await waitFor(`attempt ${round} at every payment`, async () =>
        (await settlements(ids)).every((row) => row.attempts >= round && settleCalls(row.ticket_id) >= round)
          ? true
          : undefined,
      );
      // One lease per payment and round: whichever replica took it, the others skipped it.
      for (const row of await settlements(ids)) {
        expect(row).toMatchObject({ status: 'settling', attempts: round });
        expect(settleCalls(row.ticket_id)).toBe(round);
      }
    }
    facilitator.mode = 'ok';
    await dueNow('settlements', ids);
    await waitFor('every payment settled', async () =>
      (await settlements(ids)).every((row) => row.status === 'settled') ? true : undefined,
    );

    // Asked exactly once per attempt: the purchase's own, then one per round.
    const settled = await settlements(ids);
    for (const row of settled) {
      expect(row.attempts).toBe(2 + FAILED_ROUNDS);
      expect(settleCalls(row.ticket_id)).toBe(row.attempts);
      expect(svm.chain.transactionStatus(row.transaction!)).toEqual({ ok: true });
    }
    // Landed once each: every buyer paid the price once, the host received it once per payment.
    expect(new Set(settled.map((row) => row.transaction)).size).toBe(PAYMENTS);
    for (const { buyer } of bought) expect(svm.chain.tokenBalance(buyer.agentId)).toBe(FUNDS - PRICE);
    expect(svm.chain.tokenBalance(fixtures.host.agentId)).toBe(hostBefore + BigInt(PAYMENTS) * PRICE);
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
        const { event, buyer, ticket } = await purchase();
        expect(ticket.status).toBe('active');
        return { event, ticketId: ticket.id, holder: buyer };
      }),
    );
    // The host cancels each event: a refund of each ticket paid on chain is owed, for the host to
    // pay with its own key. It pays each through a facilitator that leaves the payment open, as
    // above: the refund is `paying`, its claim the first attempt.
    for (const { event } of bought) await ticketing.deliver(fixtures.cancelled(event));
    facilitator.mode = 'unknown-unsent';
    const refunds = await Promise.all(
      bought.map(async ({ event, ticketId, holder }) => {
        const host = fixtures.host.agentId;
        const [owed] = (await ticketing.send(Refunds.list, { eventId: event.eventId }, host)).items;
        const { payTo, amount, extra } = owed!.payment!;
        const payment = await signTransfer(svm.chain, svm.rpcUrl, fixtures.host, payTo, {
          amount: BigInt(amount),
          memo: extra.memo,
        });
        const { refund } = await ticketing.send(
          Refunds.pay,
          { eventId: event.eventId, refundId: owed!.id, payment: encodePaymentHeader(payment) },
          host,
        );
        expect(refund).toMatchObject({ status: 'paying', holderId: holder.agentId });
        return { id: refund.id, ticketId, holder, payment };
      }),
    );
    const ids = refunds.map((refund) => refund.id);
    const paymentOf = new Map(refunds.map((refund) => [refund.id, refund.payment]));
    const settleCalls = (refundId: string) => facilitator.settlesOf(paymentOf.get(refundId)!);
    const state = () =>
      ticketing.query<{ id: string; status: string; attempts: number; transaction: string | null }>(
        `SELECT id, status, attempts, transaction FROM ticketing.refunds WHERE id = ANY($1::uuid[])`,
        [ids],
      );
    const hostBefore = svm.chain.tokenBalance(fixtures.host.agentId);

    for (let round = 2; round <= 1 + FAILED_ROUNDS; round++) {
      await dueNow('refunds', ids);
      await waitFor(`attempt ${round} at every refund`, async () =>
        (await state()).every((row) => row.attempts >= round && settleCalls(row.id) >= round)
          ? true
          : undefined,
      );
      for (const row of await state()) {
        expect(row).toMatchObject({ status: 'paying', attempts: round });
        expect(settleCalls(row.id)).toBe(round);
      }
    }
    facilitator.mode = 'ok';
    await dueNow('refunds', ids);
    await waitFor('every refund paid', async () =>
      (await state()).every((row) => row.status === 'paid') ? true : undefined,
    );

    const paidRefunds = await state();
    for (const row of paidRefunds) {
      expect(row.attempts).toBe(2 + FAILED_ROUNDS);
      expect(settleCalls(row.id)).toBe(row.attempts);
      expect(svm.chain.transactionStatus(row.transaction!)).toEqual({ ok: true });
    }
    // Each refund landed once: every holder has all it had again, and the host paid each once.
    expect(new Set(paidRefunds.map((row) => row.transaction)).size).toBe(PAYMENTS);
    for (const { holder } of refunds) expect(svm.chain.tokenBalance(holder.agentId)).toBe(FUNDS);
    expect(svm.chain.tokenBalance(fixtures.host.agentId)).toBe(hostBefore - BigInt(PAYMENTS) * PRICE);
    // The ledger records each refund once (the host's debit, the holder's credit), and
    // townhall.refund.paid announces it once, whichever replica concluded it.
    const ticketIds = refunds.map((refund) => refund.ticketId);
    const entries = await ticketing.query<{ ticket_id: string; agent_id: string; amount: string }>(
      `SELECT ticket_id, agent_id, amount::text AS amount FROM ticketing.ledger_entries
        WHERE type = 'EVENT_TICKET_REFUND' AND ticket_id = ANY($1::uuid[]) ORDER BY ticket_id, amount`,
      [ticketIds],
    );
    expect(entries).toEqual(
      [...refunds]
        .sort((a, b) => (a.ticketId < b.ticketId ? -1 : 1))
        .flatMap((refund) => [
          { ticket_id: refund.ticketId, agent_id: fixtures.host.agentId, amount: `-${PRICE}` },
          { ticket_id: refund.ticketId, agent_id: refund.holder.agentId, amount: `${PRICE}` },
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

describe('ticketing: a Solana payment the chain search reaches in several looks, on three replicas', () => {
  const fixtures = new TicketingFixtures();
  const PRICE = 500_000n;
  /**
   * More transfers naming the payment's memo than one look fetches of an account (50), in both
   * of its accounts: it takes two looks after the blockhash expired.
   */
  const LOOK_ALIKES = 70;
  let svm: LocalSvm;
  let facilitator: SvmFacilitatorServer;
  let ticketing: ServiceHarness;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ svm, facilitator, ticketing, stop } = await threeReplicasOnSolana(fixtures, {
      // A blockhash lives 1.5 s: the payment can no longer land by the first look.
      blockhashLifetimeMs: 1_500,
      // No look comes of itself while the test arranges the chain: the first is due 31 s after the
      // payment was recorded, the next as long after a look that stopped at its bound. The test
      // lets each look in by making it due, so a slow machine changes nothing of what it sees.
      facilitatorTimeoutMs: 30_000,
    }));
  });
  afterAll(() => stop?.());

  it('goes on from where the last look stopped, and settles the payment once', async () => {
    const event = fixtures.anEvent(1, paid(PRICE.toString()));
    await svm.chain.ensureTokenAccount(fixtures.host.agentId);
    const [buyer, stranger] = [generateAgentKey(), generateAgentKey()];
    await svm.chain.faucet(buyer.agentId, 5n * PRICE);
    await svm.chain.faucet(stranger.agentId, 5n * PRICE);
    const offer = await fixtures.offerOf(buyer, event.eventId);
    const memo = String(offer.extra['memo']);
    const payment = await signTransfer(svm.chain, svm.rpcUrl, buyer, offer.payTo, { amount: PRICE, memo });
    // The facilitator sends; before it answers (a failure it names no reason for, which leaves
    // the payment open), transfers whose memos contain the payment's land in the buyer's and the
    // host's token accounts, newer than the payment: each must be fetched to be ruled out.
    facilitator.mode = 'unknown-after-send';
    facilitator.afterSend = async () => {
      for (const owner of [buyer.agentId, fixtures.host.agentId])
        await pushTransfers(svm.chain, svm.rpcUrl, stranger, owner, { count: LOOK_ALIKES, memo });
    };
    const { ticket } = await fixtures.rsvp(buyer, event.eventId, encodePaymentHeader(payment));
    expect(ticket.status).toBe('pending');
    // Looks from now on can tell: the payment can no longer land.
    const { blockhash } = readExactSvmTransfer(payment);
    await waitFor('the payment’s blockhash to expire', async () =>
      svm.chain.isBlockhashValid(blockhash) ? undefined : true,
    );

    const settlement = () =>
      ticketing.query<{
        status: string;
        attempts: number;
        transaction: string | null;
        chain_search: unknown;
      }>(
        'SELECT status, attempts, transaction, chain_search FROM ticketing.settlements WHERE ticket_id = $1',
        [ticket.id],
      );
    /** Makes the payment's next look due now: one of the three replicas takes it. */
    const lookNow = () =>
      ticketing.query('UPDATE ticketing.settlements SET next_attempt_at = now() WHERE ticket_id = $1', [
        ticket.id,
      ]);
    expect(await settlement()).toEqual([
      expect.objectContaining({ status: 'settling', attempts: 1, chain_search: null }),
    ]);
    // The first look stops at its bound in both accounts (70 look-alikes each, 50 fetched a look),
    // incomplete: still settling, where it stopped kept.
    await lookNow();
    const [stopped] = await waitFor('a look that stopped at its bound', async () => {
      const rows = await settlement();
      return rows[0]?.chain_search ? rows : undefined;
    });
    expect(stopped).toMatchObject({ status: 'settling', attempts: 2 });
    expect(stopped!.chain_search).toEqual({ source: expect.any(String), destination: expect.any(String) });
    // The next look goes on from there, and finds the payment.
    await lookNow();
    const [settled] = await waitFor('the payment settled from the chain', async () => {
      const rows = await settlement();
      return rows[0]?.status === 'settled' ? rows : undefined;
    });
    expect(settled!.attempts).toBe(3);
    expect(svm.chain.transactionStatus(settled!.transaction!)).toEqual({ ok: true });

    // Settled once: the ticket issued and announced once, the purchase in the ledger once, the
    // money moved once.
    await waitFor('the ticket announced', async () =>
      ticketing.published.some((e) => e.type === TicketTopics.issued) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      ticketing.published.filter(
        (e) => e.type === TicketTopics.issued && (e.data as { id?: string }).id === ticket.id,
      ),
    ).toHaveLength(1);
    const entries = await ticketing.query<{ agent_id: string; amount: string; transaction: string }>(
      `SELECT agent_id, amount::text AS amount, transaction FROM ticketing.ledger_entries
        WHERE type = 'EVENT_TICKET' AND ticket_id = $1 ORDER BY amount`,
      [ticket.id],
    );
    expect(entries).toEqual([
      { agent_id: buyer.agentId, amount: `-${PRICE}`, transaction: settled!.transaction },
      { agent_id: fixtures.host.agentId, amount: `${PRICE}`, transaction: settled!.transaction },
    ]);
    expect(svm.chain.tokenBalance(buyer.agentId)).toBe(4n * PRICE + BigInt(LOOK_ALIKES));
  });
});

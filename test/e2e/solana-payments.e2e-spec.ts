import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { address, createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { TicketView } from '@townhall/contracts';
import { LocalChain, SOLANA_DEVNET, startLocalRpc, type LocalRpc } from '@townhall/solana-local';
import { AgentClient, TownhallError, type RsvpTicketResult } from '@townhall/sdk';
import { saveKeyFile } from '@townhall/sdk/key-file';
import {
  compileCacheEnv,
  freePort,
  LostAnswerProxy,
  problemOf,
  REPO_ROOT,
  StandaloneProcess,
  Topology,
  waitFor,
} from '@townhall/testing';
import { pushTransfers, SvmFacilitatorServer } from '@townhall/testing/solana';
import { readExactSvmTransfer } from '@townhall/x402/svm';
import { decodePaymentHeader } from '@townhall/x402';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';

const HOUR = 3_600_000;
/** Under the official client's default spend cap ($1 of a default asset such as USDC). */
const PRICE = '500000';
const USDC = 5_000_000n;

/** One way to run the service that sells on Solana, for the same checks. */
interface Sale {
  baseUrl: string;
  rpcUrl: string;
  client(): AgentClient;
  /** Test USDC to an agent's own token account. */
  fund(agent: AgentClient, amount: bigint): Promise<void>;
  /** Opens the host's token account, as a host must before it sells (solana-local does it itself). */
  openAccount(agent: AgentClient): Promise<void>;
  /** /settle requests the facilitator received so far, where the test can count them. */
  settles?(): number;
  stop(): Promise<void>;
}

async function tokens(rpcUrl: string, owner: string, mint: string): Promise<bigint> {
  const rpc = createSolanaRpc(rpcUrl);
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const account = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
  if (!account.value) return 0n;
  return BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount);
}

/** A single-price event of `host`'s, tomorrow: its id. */
async function singlePriceEvent(host: AgentClient, price: string, capacity: number): Promise<string> {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  const event = await host.events.create({
    title: 'Paid in USDC on Solana',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity,
    ticketing: { mode: 'single', price },
  });
  return event.id;
}

/** The official x402 client, paying exact on Solana with this agent's key: nothing of ours. */
async function officialClient(agent: AgentClient, rpcUrl: string): Promise<x402Client> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(agent.key.secretKey);
  return new x402Client().register(SOLANA_DEVNET, new ExactSvmScheme(signer, { rpcUrl }));
}

/** The v2 PaymentRequired of an unpaid RSVP, as x402's HTTP client reads it. */
async function paymentRequired(agent: AgentClient, eventId: string): Promise<PaymentRequired> {
  const refused = await problemOf(agent.request('POST', `/events/${eventId}/rsvp`));
  expect(refused.status).toBe(402);
  return new x402HTTPClient(new x402Client()).getPaymentRequiredResponse(
    (name) => refused.headers.get(name),
    refused.problem,
  );
}

/** A PAYMENT-SIGNATURE made by the official client for that 402, not sent. */
async function signedPayment(agent: AgentClient, eventId: string, rpcUrl: string): Promise<string> {
  const client = await officialClient(agent, rpcUrl);
  const payload = await client.createPaymentPayload(await paymentRequired(agent, eventId));
  return new x402HTTPClient(client).encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;
}

function payWith(agent: AgentClient, eventId: string, header: string) {
  return agent.request<TicketView>('POST', `/events/${eventId}/rsvp`, {
    headers: { 'payment-signature': header },
  });
}

/**
 * What any deployment selling on Solana must do (issue [14] "Interop with code nobody here
 * wrote"): a ticket bought with @x402/fetch's wrapFetchWithPayment over agent.fetch and the
 * official ExactSvmScheme, settled on the local SVM by @x402/svm's facilitator scheme; balances
 * moved by the price exactly once; a replay, a payment by another key, one made for a cheaper event
 * and garbage headers all refused with 4xx and nothing moved.
 */
function theSaleOnSolana(started: () => Sale): void {
  let sale: Sale;
  let host: AgentClient;
  let mint: string;

  beforeAll(async () => {
    sale = started();
    host = sale.client();
    await sale.openAccount(host);
  });

  const paidEvent = (price = PRICE, capacity = 10) => singlePriceEvent(host, price, capacity);

  async function fundedBuyer(): Promise<AgentClient> {
    const buyer = sale.client();
    await sale.fund(buyer, USDC);
    return buyer;
  }

  it('sells a ticket to the official x402 fetch client, paid with the buyer’s own key, once', async () => {
    const eventId = await paidEvent();
    const required = await paymentRequired(sale.client(), eventId);
    const [accept] = required.accepts;
    mint = accept!.asset;
    expect(accept).toMatchObject({
      scheme: 'exact',
      network: SOLANA_DEVNET,
      amount: PRICE,
      payTo: host.agentId,
      extra: { feePayer: expect.any(String), memo: expect.stringContaining(eventId) },
    });

    const buyer = await fundedBuyer();
    const before = await Promise.all([
      tokens(sale.rpcUrl, buyer.agentId, mint),
      tokens(sale.rpcUrl, host.agentId, mint),
    ]);
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      // Read without consuming: wrapFetchWithPayment hands over a Request whose body is still to be sent.
      const header =
        input instanceof Request
          ? input.headers.get('payment-signature')
          : new Headers(init?.headers).get('payment-signature');
      if (header) sent.push(header);
      return buyer.fetch(input, init);
    };
    const pay = wrapFetchWithPayment(recording, await officialClient(buyer, sale.rpcUrl));
    const response = await pay(`${sale.baseUrl}/events/${eventId}/rsvp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(201);
    const ticket = (await response.json()) as TicketView;
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET, payer: buyer.agentId });
    expect(ticket).toMatchObject({
      status: 'active',
      holderId: buyer.agentId,
      network: SOLANA_DEVNET,
      transaction: settled.transaction,
    });
    const after = await Promise.all([
      tokens(sale.rpcUrl, buyer.agentId, mint),
      tokens(sale.rpcUrl, host.agentId, mint),
    ]);
    expect(after[0]).toBe(before[0] - BigInt(PRICE));
    expect(after[1]).toBe(before[1] + BigInt(PRICE));

    // The same payment sent again, in a new signed request: the same ticket, nothing moves.
    const settlesBefore = sale.settles?.();
    const replay = await payWith(buyer, eventId, sent[0]!);
    expect(replay.status).toBe(200);
    expect(replay.data.id).toBe(ticket.id);
    expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(after[0]);
    if (settlesBefore !== undefined) expect(sale.settles!()).toBe(settlesBefore);

    // The ledger records the purchase with its chain transaction; no ledger balance moved.
    const entries = await buyer.ledger.entries();
    expect(entries.items.find((entry) => entry.type === 'EVENT_TICKET')).toMatchObject({
      amount: `-${PRICE}`,
      network: SOLANA_DEVNET,
      transaction: settled.transaction,
      ticketId: ticket.id,
    });
  });

  it('refuses a payment signed by another key before any settle, and moves nothing', async () => {
    const eventId = await paidEvent();
    const payer = await fundedBuyer();
    const caller = await fundedBuyer();
    const header = await signedPayment(payer, eventId, sale.rpcUrl);
    const settles = sale.settles?.();
    const refused = await problemOf(payWith(caller, eventId, header));
    expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
    expect(refused.problem['error']).toBe('payer_mismatch');
    if (settles !== undefined) expect(sale.settles!()).toBe(settles);
    expect(await tokens(sale.rpcUrl, payer.agentId, mint)).toBe(USDC);
    expect(await tokens(sale.rpcUrl, caller.agentId, mint)).toBe(USDC);
  });

  it('refuses a payment made for a cheaper event, or for another event at the same price', async () => {
    const cheap = await paidEvent('100000');
    const dear = await paidEvent('400000');
    const twin = await paidEvent('100000');
    const buyer = await fundedBuyer();
    const forCheap = await signedPayment(buyer, cheap, sale.rpcUrl);
    const refused = await problemOf(payWith(buyer, dear, forCheap));
    expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
    expect(refused.problem['error']).toBe('amount_mismatch');
    const elsewhere = await problemOf(payWith(buyer, twin, forCheap));
    expect(elsewhere.problem['error']).toBe('resource_mismatch');
    expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(USDC);
  });

  it('answers garbage, empty and 20 KB payment headers with 4xx, never 5xx', async () => {
    const eventId = await paidEvent();
    const buyer = await fundedBuyer();
    const garbage = Buffer.from('{"x402Version":2,"accepted":{},"payload":{"transaction":"AAAA"}}').toString(
      'base64',
    );
    for (const header of [
      'not base64 at all!',
      '',
      garbage,
      Buffer.alloc(700, 1).toString('base64'),
      'A'.repeat(20_000),
    ]) {
      const refused = await problemOf(payWith(buyer, eventId, header));
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
    }
    expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(USDC);
  });

  it('sells through the SDK, which pays with the official client and the agent’s own key', async () => {
    const eventId = await paidEvent();
    const buyer = await fundedBuyer();
    const bought = (await buyer.tickets.rsvp(eventId, {
      maxPrice: PRICE,
      network: SOLANA_DEVNET,
      rpcUrl: sale.rpcUrl,
    })) as RsvpTicketResult;
    expect(bought.created).toBe(true);
    expect(bought.payment).toMatchObject({ success: true, network: SOLANA_DEVNET });
    expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(USDC - BigInt(PRICE));
    // Above maxPrice nothing is signed.
    const other = await paidEvent();
    await expect(
      buyer.tickets.rsvp(other, { maxPrice: '1', network: SOLANA_DEVNET, rpcUrl: sale.rpcUrl }),
    ).rejects.toMatchObject({
      status: 402,
    });
  });

  it('sells to townhall mcp within its budget (an LLM runtime’s session), paid with the buyer’s own key', async () => {
    const [eventId, dearer] = await Promise.all([paidEvent(), paidEvent('600000')]);
    const buyer = await fundedBuyer();
    const home = await mkdtemp(join(tmpdir(), 'townhall-mcp-solana-'));
    const client = new Client({ name: 'solana-e2e', version: '1.0.0' });
    try {
      const keyFile = join(home, 'key.json');
      await saveKeyFile(keyFile, buyer.key);
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            'apps/cli/dist/main.js',
            ...['--url', sale.baseUrl, '--audience', buyer.audience, '--key', keyFile],
            ...['mcp', '--budget', '1000000', '--rpc', sale.rpcUrl],
          ],
          cwd: REPO_ROOT,
          env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: home },
          stderr: 'ignore',
        }),
      );
      // The model names the most it agrees to pay, as it must for a paid rsvp.
      const bought = await client.callTool({ name: 'rsvp', arguments: { eventId, maxPrice: PRICE } });
      expect(bought.isError).toBeFalsy();
      expect(bought.structuredContent).toMatchObject({
        ticket: { eventId, status: 'active' },
        charged: PRICE,
        budgetLeft: '500000',
        network: SOLANA_DEVNET,
        transaction: expect.any(String),
      });
      expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(USDC - BigInt(PRICE));
      // Dearer than what is left: refused before anything is signed, nothing moved.
      const refused = await client.callTool({
        name: 'rsvp',
        arguments: { eventId: dearer, maxPrice: '600000' },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('payment.budget');
      expect(JSON.stringify(refused.content)).toContain('may spend 500000 more');
      expect(await tokens(sale.rpcUrl, buyer.agentId, mint)).toBe(USDC - BigInt(PRICE));
    } finally {
      await client.close();
      await rm(home, { recursive: true, force: true });
    }
  });
}

describe('Solana exact through an HTTP facilitator (the official x402Facilitator over the local SVM)', () => {
  let chain: LocalChain;
  let rpc: LocalRpc;
  let facilitator: SvmFacilitatorServer;
  let topology: Topology;
  /** Ticketing's way to the chain: a test holds it to decide what reconciliation can have seen. */
  let ticketingRpc: LostAnswerProxy;

  async function start(): Promise<Sale> {
    chain = await LocalChain.open({ blockhashLifetimeMs: 4_000 });
    rpc = await startLocalRpc(chain);
    ticketingRpc = await LostAnswerProxy.start(rpc.url);
    facilitator = await SvmFacilitatorServer.start(chain);
    topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true' },
      serviceEnv: {
        ticketing: {
          X402_FACILITATOR: 'http',
          X402_FACILITATOR_URL: facilitator.url,
          X402_NETWORK: SOLANA_DEVNET,
          X402_RPC_URL: ticketingRpc.url,
          X402_FACILITATOR_TIMEOUT_MS: '800',
          SETTLEMENT_RETRY_INTERVAL_MS: '200',
        },
      },
    });
    return {
      baseUrl: topology.baseUrl,
      rpcUrl: rpc.url,
      client: () => topology.client(),
      fund: async (agent, amount) => {
        await chain.faucet(agent.agentId, amount);
      },
      openAccount: async (agent) => {
        await chain.ensureTokenAccount(agent.agentId);
      },
      settles: () => facilitator.settles,
      stop: async () => {
        await topology?.stop();
        await facilitator?.stop();
        await ticketingRpc?.stop();
        await rpc?.close();
        await chain?.close();
      },
    };
  }

  let sale: Sale;
  beforeAll(async () => {
    sale = await start();
  });
  afterAll(() => sale?.stop());

  describe('the sale', () => theSaleOnSolana(() => sale));

  describe('with the host on its own key', () => {
    let host: AgentClient;
    beforeAll(async () => {
      host = topology.client();
      await chain.ensureTokenAccount(host.agentId);
    });
    beforeEach(() => facilitator.reset());

    const oneSeat = (price = PRICE, capacity = 1) => singlePriceEvent(host, price, capacity);

    async function fundedBuyer(): Promise<AgentClient> {
      const buyer = topology.client();
      await chain.faucet(buyer.agentId, USDC);
      return buyer;
    }

    const buy = async (buyer: AgentClient, eventId: string) =>
      (await buyer.tickets.rsvp(eventId, {
        maxPrice: PRICE,
        network: SOLANA_DEVNET,
        rpcUrl: rpc.url,
      })) as RsvpTicketResult;

    const held = (buyer: AgentClient, eventId: string) =>
      buyer.tickets.held(eventId).catch((error: unknown) => {
        if (error instanceof TownhallError && error.code === 'ticket.not_found') return undefined;
        throw error;
      });

    /** While a payment is in flight the buyer is never invited to pay again. */
    async function neverAsksAgain(buyer: AgentClient, eventId: string): Promise<void> {
      const again = await buyer.request<TicketView>('POST', `/events/${eventId}/rsvp`);
      expect(again.status).toBe(200);
      expect(again.data.status).toBe('pending');
    }

    it('a facilitator that hangs after sending: 202 pending, the seat held, no 402; then settled from the chain, charged once', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      facilitator.mode = 'hang-after-send';
      const pending = await buy(buyer, eventId);
      expect(pending.ticket.status).toBe('pending');
      await neverAsksAgain(buyer, eventId);
      expect(await problemOf(topology.client().request('POST', `/events/${eventId}/rsvp`))).toMatchObject({
        status: 409,
        code: 'capacity.sold_out',
      });
      const issued = await waitFor('the payment concluded from the chain', async () => {
        const ticket = await held(buyer, eventId);
        return ticket?.status === 'active' ? ticket : undefined;
      });
      expect(issued.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      expect(chain.transactionStatus(issued.transaction!)).toEqual({ ok: true });
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE));
      expect(facilitator.settles).toBe(1);
    });

    it('a facilitator that answers settlement_pending: 202 pending, then settled from the chain, charged once', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      facilitator.mode = 'pending';
      const pending = await buy(buyer, eventId);
      expect(pending.ticket.status).toBe('pending');
      await neverAsksAgain(buyer, eventId);
      await waitFor('the pending payment settled', async () =>
        (await held(buyer, eventId))?.status === 'active' ? true : undefined,
      );
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE));
    });

    it('a facilitator that never sends: pending until the blockhash expires, then voided, the seat released, nothing charged', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      facilitator.mode = 'hang';
      const pending = await buy(buyer, eventId);
      expect(pending.ticket.status).toBe('pending');
      await neverAsksAgain(buyer, eventId);
      await waitFor(
        'the payment voided once its blockhash expired',
        async () => ((await held(buyer, eventId)) === undefined ? true : undefined),
        30_000,
      );
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC);
      // The seat is back on sale.
      facilitator.mode = 'ok';
      expect((await buy(await fundedBuyer(), eventId)).ticket.status).toBe('active');
    });

    it('a /settle the facilitator refuses before sending anything (the buyer spent its USDC after /verify): 402 at once, the seat released to the next buyer', async () => {
      const eventId = await oneSeat();
      const [unlucky, payee] = [await fundedBuyer(), await fundedBuyer()];
      const hostBefore = await tokens(rpc.url, host.agentId, chain.mint);
      // Between /verify and /settle the buyer pays all its USDC to someone else: @x402/svm's settle
      // verifies again, its simulation fails, and it says so before it signs or sends anything.
      facilitator.beforeSettle = async () => {
        await pushTransfers(chain, rpc.url, unlucky.key, payee.agentId, {
          count: 1,
          memo: 'spent elsewhere',
          amount: USDC,
        });
      };
      const refused = await problemOf(
        payWith(unlucky, eventId, await signedPayment(unlucky, eventId, rpc.url)),
      );
      expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
      expect(refused.problem['error']).toBe('invalid_exact_svm_transaction_simulation_failed');
      expect(facilitator.settles).toBe(1);
      // The seat was taken after /verify, and released with the refusal: not left to the chain.
      expect((await unlucky.tickets.mine()).items).toEqual([
        expect.objectContaining({ eventId, status: 'cancelled' }),
      ]);
      expect(await held(unlucky, eventId)).toBeUndefined();
      expect((await buy(await fundedBuyer(), eventId)).ticket.status).toBe('active');
      expect(await tokens(rpc.url, host.agentId, chain.mint)).toBe(hostBefore + BigInt(PRICE));
    });

    it('a payment the facilitator refuses at /verify (the buyer has no USDC): 402, no seat taken, nothing settled', async () => {
      const eventId = await oneSeat();
      const broke = topology.client();
      await chain.ensureTokenAccount(broke.agentId);
      const refused = await problemOf(payWith(broke, eventId, await signedPayment(broke, eventId, rpc.url)));
      expect(refused).toMatchObject({ status: 402, code: 'payment.invalid' });
      expect(refused.problem['error']).toBe('invalid_exact_svm_transaction_simulation_failed');
      expect(facilitator.calls.filter((path) => path !== '/supported')).toEqual(['/verify']);
      // No ticket was ever written for it, not even a cancelled one: the one seat is still for sale.
      expect((await broke.tickets.mine()).items).toEqual([]);
      expect((await buy(await fundedBuyer(), eventId)).ticket.status).toBe('active');
    });

    /** The entries of `agent`'s ledger of `type` for `ticketId`, from every page. */
    async function entriesOf(agent: AgentClient, type: string, ticketId: string) {
      const found = [];
      let cursor: string | undefined;
      do {
        const page = await agent.ledger.entries({ limit: 100, ...(cursor ? { cursor } : {}) });
        found.push(...page.items.filter((entry) => entry.type === type && entry.ticketId === ticketId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return found;
    }

    it('a payment whose /settle timed out after sending, then buried under 101 transfers into the buyer’s account: settled from the chain, counted once', async () => {
      const eventId = await oneSeat();
      const [buyer, stranger] = [await fundedBuyer(), await fundedBuyer()];
      const hostBefore = await tokens(rpc.url, host.agentId, chain.mint);
      // While the facilitator stalls after sending, 101 one-unit transfers land in the buyer's
      // token account (the payment's source): the payment is no longer among its newest 100.
      let buried: Promise<string[]> | undefined;
      facilitator.mode = 'hang-after-send';
      facilitator.afterSend = async () => {
        buried = pushTransfers(chain, rpc.url, stranger.key, buyer.agentId, { count: 101, memo: 'one unit' });
        await buried;
      };
      // Reconciliation (after the facilitator timeout and a second) reads the chain only once the
      // transfers have landed, however slow this machine is at sending them.
      const release = ticketingRpc.hold();
      try {
        const pending = await buy(buyer, eventId);
        expect(pending.ticket.status).toBe('pending');
        await waitFor('the transfers landed', async () => (buried ? await buried : undefined));
        expect((await held(buyer, eventId))?.status).toBe('pending');
      } finally {
        release();
      }

      const issued = await waitFor(
        'the payment concluded from the chain',
        async () => {
          const ticket = await held(buyer, eventId);
          return ticket?.status !== 'pending' ? (ticket ?? null) : undefined;
        },
        30_000,
      );
      expect(issued).toMatchObject({ status: 'active', network: SOLANA_DEVNET });
      expect(chain.transactionStatus(issued!.transaction!)).toEqual({ ok: true });
      // The money moved once, and is counted once.
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE) + 101n);
      expect(await tokens(rpc.url, host.agentId, chain.mint)).toBe(hostBefore + BigInt(PRICE));
      expect(await entriesOf(buyer, 'EVENT_TICKET', issued!.id)).toEqual([
        expect.objectContaining({ amount: `-${PRICE}`, transaction: issued!.transaction }),
      ]);
      expect(await entriesOf(host, 'EVENT_TICKET', issued!.id)).toEqual([
        expect.objectContaining({ amount: PRICE, transaction: issued!.transaction }),
      ]);
    });

    it('a refund whose /settle timed out after sending, then buried under 101 transfers by the holder into the host’s account: paid once', async () => {
      const eventId = await oneSeat(PRICE, 2);
      const holder = await fundedBuyer();
      const { ticket } = await buy(holder, eventId);
      await host.events.cancel(eventId);
      const [owed] = await waitFor('the refund owed', async () => {
        const page = await host.refunds.list(eventId);
        return page.items.length === 1 ? page.items : undefined;
      });
      const hostBefore = await tokens(rpc.url, host.agentId, chain.mint);
      // The holder, who would gain from a second refund, pushes 101 one-unit transfers into the
      // host's token account (the refund's source), each with a memo naming the refund's: none
      // can be told apart from the payment without fetching it.
      let buried: Promise<string[]> | undefined;
      facilitator.mode = 'hang-after-send';
      facilitator.afterSend = async () => {
        buried = pushTransfers(chain, rpc.url, holder.key, host.agentId, {
          count: 101,
          memo: owed!.payment!.extra.memo,
        });
        await buried;
      };
      const release = ticketingRpc.hold(); // as for the payment above
      try {
        const [paying] = await host.refunds.payAll(eventId, { rpcUrl: rpc.url });
        expect(paying).toMatchObject({ id: owed!.id, status: 'paying' });
        await waitFor('the transfers landed', async () => (buried ? await buried : undefined));
        expect((await host.refunds.list(eventId)).items[0]!.status).toBe('paying');
      } finally {
        release();
      }

      const concluded = await waitFor(
        'the refund concluded from the chain',
        async () => {
          const [refund] = (await host.refunds.list(eventId)).items;
          return refund?.status === 'paying' ? undefined : refund;
        },
        60_000,
      );
      expect(concluded).toMatchObject({ status: 'paid', transaction: expect.any(String) });
      expect(chain.transactionStatus(concluded!.transaction!)).toEqual({ ok: true });
      // The holder got the price back once: all it has is what it had, less the 101 it pushed.
      expect(await tokens(rpc.url, holder.agentId, chain.mint)).toBe(USDC - 101n);
      expect(await tokens(rpc.url, host.agentId, chain.mint)).toBe(hostBefore - BigInt(PRICE) + 101n);
      expect(await entriesOf(holder, 'EVENT_TICKET_REFUND', ticket.id)).toEqual([
        expect.objectContaining({ amount: PRICE, transaction: concluded!.transaction }),
      ]);
      // Nothing is owed any more: a second payment is never asked for.
      expect(await host.refunds.payAll(eventId, { rpcUrl: rpc.url })).toEqual([]);
      expect(await tokens(rpc.url, holder.agentId, chain.mint)).toBe(USDC - 101n);
    });

    it('a facilitator that sends and then answers a failure no list knows: 202 pending, then settled from the chain', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      facilitator.mode = 'unknown-after-send';
      const pending = await buy(buyer, eventId);
      expect(pending.ticket.status).toBe('pending');
      await neverAsksAgain(buyer, eventId);
      const issued = await waitFor('the payment concluded from the chain', async () => {
        const ticket = await held(buyer, eventId);
        return ticket?.status !== 'pending' ? (ticket ?? null) : undefined;
      });
      expect(issued).toMatchObject({ status: 'active' });
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE));
      expect(await entriesOf(buyer, 'EVENT_TICKET', issued!.id)).toHaveLength(1);
    });

    it('a facilitator that answers a failure no list knows without sending: pending while its blockhash is valid, then voided', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      const header = await signedPayment(buyer, eventId, rpc.url);
      const { blockhash } = readExactSvmTransfer(decodePaymentHeader(header));
      facilitator.mode = 'unknown-unsent';
      const answered = await payWith(buyer, eventId, header);
      expect(answered.status).toBe(202);
      expect(answered.data.status).toBe('pending');
      // Reconciliation looks every 200 ms: while the payment could still land, it stays open.
      while (chain.isBlockhashValid(blockhash)) {
        expect((await held(buyer, eventId))?.status).toBe('pending');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await waitFor(
        'the payment voided',
        async () => ((await held(buyer, eventId)) === undefined ? true : undefined),
        30_000,
      );
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC);
      facilitator.mode = 'ok';
      expect((await buy(await fundedBuyer(), eventId)).ticket.status).toBe('active');
    });

    it('a refund whose facilitator sends and then answers a failure no list knows: paid from the chain, never owed again', async () => {
      const eventId = await oneSeat(PRICE, 2);
      const holder = await fundedBuyer();
      await buy(holder, eventId);
      await host.events.cancel(eventId);
      await waitFor('the refund owed', async () =>
        (await host.refunds.list(eventId)).items.length === 1 ? true : undefined,
      );
      facilitator.mode = 'unknown-after-send';
      const [paying] = await host.refunds.payAll(eventId, { rpcUrl: rpc.url });
      expect(paying!.status).toBe('paying');
      const concluded = await waitFor('the refund concluded from the chain', async () => {
        const [refund] = (await host.refunds.list(eventId)).items;
        return refund?.status === 'paying' ? undefined : refund;
      });
      expect(concluded).toMatchObject({ status: 'paid' });
      expect(await tokens(rpc.url, holder.agentId, chain.mint)).toBe(USDC);
      expect(await host.refunds.payAll(eventId, { rpcUrl: rpc.url })).toEqual([]);
    });

    it('a cancelled event owes refunds of its tickets paid on chain; the host pays each exactly once, with its key', async () => {
      const eventId = await oneSeat(PRICE, 5);
      const [ada, bob] = [await fundedBuyer(), await fundedBuyer()];
      await buy(ada!, eventId);
      await buy(bob!, eventId);
      await host.events.cancel(eventId);
      const owed = await waitFor('both refunds owed', async () => {
        const page = await host.refunds.list(eventId);
        return page.items.length === 2 ? page.items : undefined;
      });
      expect(owed.map((refund) => refund.status)).toEqual(['owed', 'owed']);
      expect(owed[0]!.payment).toMatchObject({ scheme: 'exact', network: SOLANA_DEVNET, amount: PRICE });
      // A holder sees its own refund, without the host's payment to sign.
      expect((await ada!.refunds.list(eventId)).items).toEqual([
        expect.objectContaining({ holderId: ada!.agentId, status: 'owed', payment: null }),
      ]);

      const paid = await host.refunds.payAll(eventId, { rpcUrl: rpc.url });
      expect(paid.map((refund) => refund.status)).toEqual(['paid', 'paid']);
      expect(await tokens(rpc.url, ada!.agentId, chain.mint)).toBe(USDC);
      expect(await tokens(rpc.url, bob!.agentId, chain.mint)).toBe(USDC);
      const entries = (await ada!.ledger.entries()).items.filter(
        (entry) => entry.type === 'EVENT_TICKET_REFUND',
      );
      expect(entries).toEqual([
        expect.objectContaining({
          amount: PRICE,
          network: SOLANA_DEVNET,
          transaction: paid.find((r) => r.holderId === ada!.agentId)!.transaction,
        }),
      ]);

      // A second payment of a paid refund is refused before anything is settled.
      const refund = owed.find((entry) => entry.holderId === ada!.agentId)!;
      const client = await officialClient(host, rpc.url);
      const again = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: refund.payment!.extra.resource },
        accepts: [refund.payment!],
      } as PaymentRequired);
      const settles = facilitator.settles;
      const refused = await problemOf(
        host.request('POST', `/events/${eventId}/refunds/${refund.id}/pay`, {
          headers: {
            'payment-signature': new x402HTTPClient(client).encodePaymentSignatureHeader(again)[
              'PAYMENT-SIGNATURE'
            ]!,
          },
        }),
      );
      expect(refused).toMatchObject({ status: 409, code: 'refund.already_paid' });
      expect(facilitator.settles).toBe(settles);
      expect(await host.refunds.payAll(eventId, { rpcUrl: rpc.url })).toEqual([]);
    });

    it('a coded ticket paid on chain: the discounted price paid, recorded, and refunded on the chain', async () => {
      const eventId = await oneSeat(PRICE, 5);
      await host.codes.create(eventId, { code: 'HALF', percentOff: 50 });
      const half = String(BigInt(PRICE) / 2n);
      const buyer = await fundedBuyer();
      const bought = (await buyer.tickets.rsvp(eventId, {
        code: 'half',
        maxPrice: half,
        network: SOLANA_DEVNET,
        rpcUrl: rpc.url,
      })) as RsvpTicketResult;
      expect(bought.ticket).toMatchObject({ status: 'active', price: half, code: 'HALF' });
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(half));
      expect((await buyer.ledger.entries()).items.find((e) => e.type === 'EVENT_TICKET')).toMatchObject({
        amount: `-${half}`,
        code: 'HALF',
        network: SOLANA_DEVNET,
      });
      expect((await host.codes.list(eventId)).items).toEqual([
        expect.objectContaining({ code: 'HALF', uses: 1 }),
      ]);

      await host.events.cancel(eventId);
      const [owed] = await waitFor('the refund owed', async () => {
        const page = await host.refunds.list(eventId);
        return page.items.length === 1 ? page.items : undefined;
      });
      expect(owed).toMatchObject({ status: 'owed', amount: half, holderId: buyer.agentId });
      const paid = await host.refunds.payAll(eventId, { rpcUrl: rpc.url });
      expect(paid.map((refund) => refund.status)).toEqual(['paid']);
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC);
    });

    it('the CLI: townhall wallet, rsvp --network on chain, and refunds pay', async () => {
      const home = await mkdtemp(join(tmpdir(), 'townhall-cli-solana-'));
      try {
        const buyer = topology.client();
        const hostHome = join(home, 'host');
        await saveKeyFile(join(home, '.townhall', 'key.json'), buyer.key);
        await saveKeyFile(join(hostHome, '.townhall', 'key.json'), host.key);
        const cli = (args: string[], as = home) =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, ['apps/cli/dist/main.js', ...args], {
              cwd: REPO_ROOT,
              env: {
                PATH: process.env['PATH'] ?? '',
                ...compileCacheEnv(),
                HOME: as,
                TOWNHALL_URL: topology.baseUrl,
                TOWNHALL_SOLANA_RPC: rpc.url,
              },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
            child.once('exit', (code) => resolve({ code, stdout, stderr }));
          });
        await chain.faucet(buyer.agentId, USDC);
        const wallet = await cli(['wallet', '--json']);
        expect(wallet.code).toBe(0);
        expect(JSON.parse(wallet.stdout)).toMatchObject({
          address: buyer.agentId,
          tokens: String(USDC),
          sol: '0',
        });

        const eventId = await oneSeat(PRICE, 3);
        const bought = await cli(['rsvp', eventId, '--max-price', PRICE, '--network', SOLANA_DEVNET]);
        expect(bought).toMatchObject({ code: 0 });
        // The chain's mint is Circle's devnet USDC: a person reads USDC, with the atomic units beside.
        expect(bought.stdout).toContain(`paid 0.5 USDC (${PRICE}) on ${SOLANA_DEVNET} (transaction `);
        expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE));

        await host.events.cancel(eventId);
        await waitFor('the refund owed', async () =>
          (await host.refunds.list(eventId)).items.length === 1 ? true : undefined,
        );
        const refunded = await cli(['refunds', 'pay', eventId], hostHome);
        expect(refunded.code).toBe(0);
        expect(refunded.stdout).toMatch(/paid\s+0\.5 USDC \(500000\) to \S+ \(transaction \S+\)/);
        expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC);
        expect((await cli(['refunds', 'pay', eventId], hostHome)).stdout).toContain('no refund is owed');
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    });

    // Last in this describe: ticketing is killed here and started again (with the same environment).
    it('a payment settling when ticketing is killed with SIGKILL: the service started again settles it from the chain, charged once', async () => {
      const eventId = await oneSeat();
      const buyer = await fundedBuyer();
      const hostBefore = await tokens(rpc.url, host.agentId, chain.mint);
      // The facilitator sends the payment and, before it answers, ticketing is killed (no chance to
      // finish anything) and started again: what it wrote before /settle (the pending ticket, its
      // settlement) is all the new process knows of the payment.
      let restarted: Promise<unknown> | undefined;
      facilitator.mode = 'hang-after-send';
      facilitator.afterSend = async () => {
        restarted = topology.restartService('ticketing', {}, { kill: true });
        await restarted;
      };
      const lost = await problemOf(payWith(buyer, eventId, await signedPayment(buyer, eventId, rpc.url)));
      // The request died with the process that held it.
      expect(lost).toMatchObject({ status: 504, code: 'service.timeout' });
      await waitFor('ticketing started again', async () => (restarted ? await restarted : undefined));

      const issued = await waitFor('the payment concluded from the chain', async () => {
        const ticket = await held(buyer, eventId);
        return ticket?.status === 'active' ? ticket : undefined;
      });
      expect(chain.transactionStatus(issued.transaction!)).toEqual({ ok: true });
      expect(await tokens(rpc.url, buyer.agentId, chain.mint)).toBe(USDC - BigInt(PRICE));
      expect(await tokens(rpc.url, host.agentId, chain.mint)).toBe(hostBefore + BigInt(PRICE));
      expect(await entriesOf(buyer, 'EVENT_TICKET', issued.id)).toHaveLength(1);
      // The chain told the new process; the facilitator was asked once, by the killed one.
      expect(facilitator.settles).toBe(1);
      expect(await problemOf(topology.client().request('POST', `/events/${eventId}/rsvp`))).toMatchObject({
        status: 409,
        code: 'capacity.sold_out',
      });
    });
  });
});

/** solana-local: the chain in the ticketing process, its JSON-RPC on a free port; the faucet is the API's. */
function localChainSale(
  agentOf: () => AgentClient,
  baseUrl: string,
  rpcUrl: string,
  stop: () => Promise<void>,
): Sale {
  return {
    baseUrl,
    rpcUrl,
    client: agentOf,
    fund: async (agent, amount) => {
      await agent.ledger.faucet(String(amount), undefined, SOLANA_DEVNET);
    },
    // solana-local opens the host's token account itself, with its first 402.
    openAccount: async () => undefined,
    stop,
  };
}

/** The sale, on a deployment `start` makes and the describe stops. */
function onDeployment(start: () => Promise<Sale>): void {
  let sale: Sale;
  beforeAll(async () => {
    sale = await start();
  });
  afterAll(() => sale?.stop());
  theSaleOnSolana(() => sale);
}

describe('Solana exact with X402_FACILITATOR=solana-local, distributed', () => {
  onDeployment(async () => {
    const port = await freePort();
    const topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true', LEDGER_FAUCET_MAX_AMOUNT: String(USDC) },
      serviceEnv: { ticketing: { X402_FACILITATOR: 'solana-local', SOLANA_LOCAL_RPC_PORT: String(port) } },
    });
    return localChainSale(
      () => topology.client(),
      topology.baseUrl,
      `http://127.0.0.1:${port}`,
      () => topology.stop(),
    );
  });
});

describe('Solana exact with npm start -- --solana-local (standalone)', () => {
  onDeployment(async () => {
    const port = await freePort();
    const standalone = await StandaloneProcess.start({
      X402_FACILITATOR: 'solana-local',
      SOLANA_LOCAL_RPC_PORT: String(port),
      // Each buyer is funded with USDC in one faucet call.
      LEDGER_FAUCET_MAX_AMOUNT: String(USDC),
    });
    expect(standalone.log).toContain(
      `Payments   USDC on a local Solana (solana-local), JSON-RPC http://127.0.0.1:${port}`,
    );
    return localChainSale(
      // It signs for its PUBLIC_BASE_URL, http://localhost:<port>.
      () =>
        new AgentClient({
          baseUrl: standalone.baseUrl,
          audience: standalone.baseUrl.replace('127.0.0.1', 'localhost'),
        }),
      standalone.baseUrl,
      `http://127.0.0.1:${port}`,
      () => standalone.stop(),
    );
  });
});

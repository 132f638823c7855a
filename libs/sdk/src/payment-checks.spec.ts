import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import bs58 from 'bs58';
import { generateAgentKey } from '@townhall/auth/portable';
import type { RefundView } from '@townhall/contracts';
import type { PaymentRequirements } from '@townhall/x402';
import { wrapFetchWithPayment } from '@x402/fetch';

// Every ledger signature goes through @townhall/x402's signLedgerPayment, which AgentClient loads
// only to pay: a mock of the module counts them. Every Solana signature is WebCrypto's Ed25519
// (@solana/kit signs the transfer with crypto.subtle.sign; request signatures use noble instead).
const x402 = await import('@townhall/x402');
const signLedgerPayment = jest.fn(x402.signLedgerPayment);
jest.unstable_mockModule('@townhall/x402', () => ({ ...x402, signLedgerPayment }));
const { AgentClient, TownhallError } = await import('./index.js');
const { PaymentRefusedError, SOLANA_DEVNET, SOLANA_MAINNET, SolanaPayer, USDC_MINTS } =
  await import('./solana.js');
const solanaSign = jest.spyOn(globalThis.crypto.subtle, 'sign');

const USDC_DEVNET = USDC_MINTS[SOLANA_DEVNET]!;
/** A mint that is not USDC (any address: the fake chain answers every mint as a 6-decimal one). */
const OTHER_MINT = generateAgentKey().agentId;
const BASE_URL = 'http://example.test';
const host = generateAgentKey();
const holder = generateAgentKey();
const stranger = generateAgentKey();
const feePayer = generateAgentKey();

/**
 * A Solana JSON-RPC with what the official client reads before it signs: every mint it is asked
 * for is an initialized SPL Token mint of 6 decimals, and a recent blockhash. Records each method.
 */
async function fakeSolanaRpc() {
  const mint = new Uint8Array(82);
  mint[44] = 6; // decimals
  mint[45] = 1; // initialized
  const calls: string[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const { id, method } = JSON.parse(text) as { id: unknown; method: string };
      calls.push(method);
      const result =
        method === 'getAccountInfo'
          ? {
              context: { slot: 1 },
              value: {
                data: [Buffer.from(mint).toString('base64'), 'base64'],
                executable: false,
                lamports: 1_461_600,
                owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
                rentEpoch: 0,
                space: 82,
              },
            }
          : {
              context: { slot: 1 },
              value: { blockhash: bs58.encode(new Uint8Array(32).fill(7)), lastValidBlockHeight: 100 },
            };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let rpc: Awaited<ReturnType<typeof fakeSolanaRpc>>;
beforeAll(async () => {
  rpc = await fakeSolanaRpc();
});
afterAll(() => rpc.close());
beforeEach(() => {
  rpc.calls.length = 0;
  signLedgerPayment.mockClear();
  solanaSign.mockClear();
});

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers },
  });
}

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/**
 * A Townhall server faked behind `fetch`: `answer` gets each request; `sent` records it as
 * `METHOD path`, plus the name of the payment header it carried.
 */
function serverOf(answer: (method: string, path: string, paid: boolean) => Response) {
  const sent: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const { pathname } = new URL(request.url);
    const payment = ['x-payment', 'payment-signature'].find((name) => request.headers.has(name));
    sent.push(`${request.method} ${pathname}${payment ? ` ${payment}` : ''}`);
    return answer(request.method, pathname, payment !== undefined);
  };
  return { sent, fetch };
}

describe('refunds.payAll: the SDK signs a refund only to its holder, for its amount, in its asset', () => {
  type RefundPayment = NonNullable<RefundView['payment']>;

  /** An owed refund of 0.5 USDC on devnet, its payment changed by `change`. */
  function owedRefund(
    change: Partial<RefundPayment> & { maxAmountRequired?: string } = {},
    fields: Partial<RefundView> = {},
  ): RefundView {
    const refund = {
      id: 'r1',
      eventId: 'e1',
      ticketId: 't1',
      holderId: holder.agentId,
      hostId: host.agentId,
      amount: '500000',
      asset: USDC_DEVNET,
      network: SOLANA_DEVNET,
      status: 'owed' as const,
      transaction: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      paidAt: null,
      ...fields,
    };
    const payment: RefundPayment = {
      scheme: 'exact',
      network: refund.network,
      amount: refund.amount,
      asset: refund.asset,
      payTo: refund.holderId,
      maxTimeoutSeconds: 300,
      extra: {
        eventId: 'e1',
        tierId: 'general',
        feePayer: feePayer.agentId,
        memo: `townhall:refund:${refund.id}`,
        resource: `${BASE_URL}/events/e1/refunds/${refund.id}/pay`,
      },
      ...change,
    };
    return { ...refund, payment };
  }

  /** The host's client, against a server listing `refunds` and taking any payment of one. */
  function hostOf(refunds: RefundView[], assets?: readonly string[]) {
    const server = serverOf((method, path) => {
      if (method === 'GET') return json({ items: refunds, nextCursor: null });
      const id = path.split('/')[4];
      return json({ ...refunds.find((refund) => refund.id === id), status: 'paid', payment: null });
    });
    const agent = new AgentClient({
      baseUrl: BASE_URL,
      key: host,
      fetch: server.fetch,
      ...(assets === undefined ? {} : { assets }),
    });
    return { agent, sent: server.sent };
  }

  it('pays a refund whose payment is the refund: one signed transfer, sent once', async () => {
    const refund = owedRefund();
    const { agent, sent } = hostOf([refund]);
    const paid = await agent.refunds.payAll('e1', { rpcUrl: rpc.url });
    expect(paid.map((entry) => entry.status)).toEqual(['paid']);
    expect(sent).toEqual(['GET /events/e1/refunds', 'POST /events/e1/refunds/r1/pay payment-signature']);
    expect(solanaSign).toHaveBeenCalledTimes(1);
    expect(rpc.calls).toContain('getAccountInfo');
  });

  it.each<[string, Partial<RefundPayment> & { maxAmountRequired?: string }, string, string]>([
    ['to another payee', { payTo: stranger.agentId }, 'payTo', holder.agentId],
    ['for another amount', { amount: '5000000' }, 'amount', '500000'],
    ['for another amount in its v1 field', { maxAmountRequired: '5000000' }, 'amount', '500000'],
    ['in another asset', { asset: OTHER_MINT }, 'asset', USDC_DEVNET],
    ['on another network', { network: SOLANA_MAINNET }, 'network', SOLANA_DEVNET],
  ])('refuses a refund payment %s: nothing signed, nothing sent', async (_case, change, field, expected) => {
    const { agent, sent } = hostOf([owedRefund(change)]);
    const refused = await agent.refunds.payAll('e1', { rpcUrl: rpc.url }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentRefusedError);
    expect(refused).toMatchObject({
      code: 'payment.refused',
      field,
      against: 'refund',
      expected: [expected],
    });
    // Refused as this refund's payment, by the check of the refund (the payer's policy is a second line).
    expect((refused as InstanceType<typeof PaymentRefusedError>).detail).toMatch(/^refund r1: /);
    expect(sent).toEqual(['GET /events/e1/refunds']);
    expect(solanaSign).not.toHaveBeenCalled();
    expect(rpc.calls).toEqual([]);
  });

  it('refuses a refund in an asset the host does not pay in, and pays it once the host does', async () => {
    const refund = owedRefund({ asset: OTHER_MINT }, { asset: OTHER_MINT });
    const refusing = hostOf([refund]);
    await expect(refusing.agent.refunds.payAll('e1', { rpcUrl: rpc.url })).rejects.toMatchObject({
      code: 'payment.refused',
      field: 'asset',
      against: 'assets',
      offered: OTHER_MINT,
      expected: [USDC_DEVNET],
    });
    expect(refusing.sent).toEqual(['GET /events/e1/refunds']);
    expect(solanaSign).not.toHaveBeenCalled();

    const paying = hostOf([refund], [OTHER_MINT]);
    await paying.agent.refunds.payAll('e1', { rpcUrl: rpc.url });
    expect(paying.sent).toEqual([
      'GET /events/e1/refunds',
      'POST /events/e1/refunds/r1/pay payment-signature',
    ]);
    expect(solanaSign).toHaveBeenCalledTimes(1);
  });

  it('pays none of a listing in which one payment is not its refund', async () => {
    const good = owedRefund();
    const bad = owedRefund({ payTo: stranger.agentId }, { id: 'r2', ticketId: 't2' });
    const { agent, sent } = hostOf([good, bad]);
    await expect(agent.refunds.payAll('e1', { rpcUrl: rpc.url })).rejects.toMatchObject({ field: 'payTo' });
    expect(sent).toEqual(['GET /events/e1/refunds']);
    expect(solanaSign).not.toHaveBeenCalled();
  });
});

describe('tickets.rsvp: the SDK pays a ticket only in an asset the caller pays in', () => {
  /** A ledger offer of the tier `general` for 700 of `asset`. */
  const ledgerOffer = (asset: string): PaymentRequirements => ({
    scheme: 'exact',
    network: 'ledger:development',
    maxAmountRequired: '700',
    asset,
    payTo: host.agentId,
    resource: `${BASE_URL}/events/e1/rsvp?tier=general`,
    description: 'Ticket (General admission) for event e1',
    mimeType: 'application/json',
    maxTimeoutSeconds: 300,
    extra: { eventId: 'e1', tierId: 'general' },
  });

  /** A devnet offer for 500000 of `asset`; the v2 header may name another (`headerAsset`). */
  const solanaOffer = (asset: string): PaymentRequirements => ({
    ...ledgerOffer(asset),
    network: SOLANA_DEVNET,
    maxAmountRequired: '500000',
    extra: { eventId: 'e1', tierId: 'general', feePayer: feePayer.agentId, memo: 'townhall:e1:general' },
  });

  /** The x402 v2 PAYMENT-REQUIRED of one offer, as the server sends it beside the v1 body. */
  const paymentRequired = ({
    maxAmountRequired,
    resource,
    description,
    mimeType,
    ...offer
  }: PaymentRequirements) =>
    base64Json({
      x402Version: 2,
      error: 'X-PAYMENT header is required',
      resource: { url: resource, description, mimeType },
      accepts: [{ ...offer, amount: maxAmountRequired, extra: { ...offer.extra, resource } }],
    });

  /** A buyer against a server that answers the unpaid RSVP 402 (`offer`; `header`: its v2 form) and a paid one 201. */
  function buyerOf(
    offer: PaymentRequirements,
    options: { assets?: readonly string[]; header?: string } = {},
  ) {
    const server = serverOf((_method, _path, paid) =>
      paid
        ? json({ id: 't1', eventId: 'e1', tierId: 'general', status: 'active' }, 201)
        : json(
            {
              type: 'about:blank',
              title: 'Payment required',
              status: 402,
              detail: 'This event sells paid tickets',
              code: 'payment.required',
              requestId: 'req',
              x402Version: 1,
              accepts: [offer],
            },
            402,
            { 'payment-required': options.header ?? paymentRequired(offer) },
          ),
    );
    const agent = new AgentClient({
      baseUrl: BASE_URL,
      fetch: server.fetch,
      ...(options.assets === undefined ? {} : { assets: options.assets }),
    });
    return { agent, sent: server.sent, fetch: server.fetch };
  }

  it('on the ledger: pays USDC by default, refuses another asset before signing', async () => {
    const usdc = buyerOf(ledgerOffer('USDC'));
    expect(await usdc.agent.tickets.rsvp('e1', { maxPrice: '700' })).toMatchObject({ created: true });
    expect(usdc.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp x-payment']);
    expect(signLedgerPayment).toHaveBeenCalledTimes(1);

    signLedgerPayment.mockClear();
    const eurc = buyerOf(ledgerOffer('EURC'));
    const refused = await eurc.agent.tickets.rsvp('e1', { maxPrice: '700' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentRefusedError);
    expect(refused).toMatchObject({
      code: 'payment.refused',
      field: 'asset',
      against: 'assets',
      offered: 'EURC',
      expected: ['USDC'],
    });
    expect(eurc.sent).toEqual(['POST /events/e1/rsvp']);
    expect(signLedgerPayment).not.toHaveBeenCalled();
  });

  it('on the ledger: `assets` replaces USDC, and `asset` narrows them', async () => {
    const eurc = buyerOf(ledgerOffer('EURC'), { assets: ['EURC'] });
    await eurc.agent.tickets.rsvp('e1', { maxPrice: '700' });
    expect(eurc.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp x-payment']);
    expect(signLedgerPayment).toHaveBeenCalledTimes(1);

    signLedgerPayment.mockClear();
    const usdc = buyerOf(ledgerOffer('USDC'), { assets: ['EURC'] });
    await expect(usdc.agent.tickets.rsvp('e1', { maxPrice: '700' })).rejects.toMatchObject({
      field: 'asset',
      offered: 'USDC',
      expected: ['EURC'],
    });
    // A copy keeps its assets (withIdempotencyKey), or takes new ones (withAssets).
    await expect(
      usdc.agent.withIdempotencyKey('k1').tickets.rsvp('e1', { maxPrice: '700' }),
    ).rejects.toBeInstanceOf(PaymentRefusedError);
    const narrowed = usdc.agent.withAssets(['EURC', 'USDC']);
    await expect(narrowed.tickets.rsvp('e1', { maxPrice: '700', asset: 'EURC' })).rejects.toBeInstanceOf(
      TownhallError,
    );
    expect(usdc.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp', 'POST /events/e1/rsvp']);
    expect(signLedgerPayment).not.toHaveBeenCalled();
    await narrowed.tickets.rsvp('e1', { maxPrice: '700' });
    expect(signLedgerPayment).toHaveBeenCalledTimes(1);
  });

  const onDevnet = { maxPrice: '500000', network: SOLANA_DEVNET };

  it('on Solana: pays USDC by default, refuses another mint before signing', async () => {
    const usdc = buyerOf(solanaOffer(USDC_DEVNET));
    expect(await usdc.agent.tickets.rsvp('e1', { ...onDevnet, rpcUrl: rpc.url })).toMatchObject({
      created: true,
    });
    expect(usdc.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp payment-signature']);
    expect(solanaSign).toHaveBeenCalledTimes(1);

    solanaSign.mockClear();
    rpc.calls.length = 0;
    const other = buyerOf(solanaOffer(OTHER_MINT));
    const refused = await other.agent.tickets
      .rsvp('e1', { ...onDevnet, rpcUrl: rpc.url })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentRefusedError);
    expect(refused).toMatchObject({ field: 'asset', offered: OTHER_MINT, expected: [USDC_DEVNET] });
    expect(other.sent).toEqual(['POST /events/e1/rsvp']);
    expect(solanaSign).not.toHaveBeenCalled();
    expect(rpc.calls).toEqual([]);
  });

  it.each([
    ['USDC, the header another mint it pays in', [USDC_DEVNET, OTHER_MINT], USDC_DEVNET, OTHER_MINT],
    ['its own mint, the header USDC', [OTHER_MINT], OTHER_MINT, USDC_DEVNET],
  ])(
    'on Solana: pays only the mint it checked in the 402 body, not another the v2 header names (body %s)',
    async (_case, assets, checked, swapped) => {
      const buyer = buyerOf(solanaOffer(checked), { assets, header: paymentRequired(solanaOffer(swapped)) });
      const refused = await buyer.agent.tickets
        .rsvp('e1', { ...onDevnet, rpcUrl: rpc.url })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PaymentRefusedError);
      expect(refused).toMatchObject({ field: 'asset', offered: swapped, expected: [checked] });
      expect(buyer.sent).toEqual(['POST /events/e1/rsvp']);
      expect(solanaSign).not.toHaveBeenCalled();
      expect(rpc.calls).toEqual([]);
    },
  );

  it('on Solana: pays another mint when `assets` names it (a test chain of its own)', async () => {
    const other = buyerOf(solanaOffer(OTHER_MINT), { assets: [OTHER_MINT] });
    await other.agent.tickets.rsvp('e1', { ...onDevnet, rpcUrl: rpc.url });
    expect(other.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp payment-signature']);
    expect(solanaSign).toHaveBeenCalledTimes(1);
  });

  it("on Solana: sends the host's code again with the payment, so it pays the price the code gives", async () => {
    const server = buyerOf(solanaOffer(USDC_DEVNET));
    const bodies: string[] = [];
    const agent = new AgentClient({
      baseUrl: BASE_URL,
      fetch: async (input, init) => {
        bodies.push(String(init?.body));
        return server.fetch(input, init);
      },
    });
    await agent.tickets.rsvp('e1', { ...onDevnet, code: 'SPRING25', rpcUrl: rpc.url });
    expect(server.sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp payment-signature']);
    expect(bodies).toEqual(['{"code":"SPRING25"}', '{"tierId":"general","code":"SPRING25"}']);
  });

  describe('SolanaPayer with the official fetch wrapper', () => {
    /** agent.fetch wrapped by @x402/fetch with a SolanaPayer, against a 402 offering `offers`. */
    async function wrapped(offers: PaymentRequirements[], assets?: readonly string[]) {
      const header = base64Json({
        x402Version: 2,
        error: 'X-PAYMENT header is required',
        resource: { url: `${BASE_URL}/events/e1/rsvp` },
        accepts: offers.map(({ maxAmountRequired, resource, description: _d, mimeType: _m, ...offer }) => ({
          ...offer,
          amount: maxAmountRequired,
          extra: { ...offer.extra, resource },
        })),
      });
      const server = serverOf((_method, _path, paid) =>
        paid
          ? json({ id: 't1', status: 'active' }, 201)
          : json({ code: 'payment.required' }, 402, { 'payment-required': header }),
      );
      const agent = new AgentClient({ baseUrl: BASE_URL, fetch: server.fetch });
      const payer = await SolanaPayer.create(agent.key, {
        rpcUrl: rpc.url,
        ...(assets === undefined ? {} : { assets }),
      });
      const pay = wrapFetchWithPayment(agent.fetch, payer.client);
      return {
        sent: server.sent,
        payer,
        rsvp: () => pay(`${BASE_URL}/events/e1/rsvp`, { method: 'POST', body: '{}' }),
      };
    }

    it('pays USDC, choosing it over another mint offered beside it', async () => {
      const { rsvp, sent } = await wrapped([solanaOffer(OTHER_MINT), solanaOffer(USDC_DEVNET)]);
      expect((await rsvp()).status).toBe(201);
      expect(sent).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp payment-signature']);
      expect(solanaSign).toHaveBeenCalledTimes(1);
    });

    it('refuses a 402 that offers only another mint: nothing signed, no paid retry', async () => {
      const { rsvp, sent, payer } = await wrapped([solanaOffer(OTHER_MINT)]);
      await expect(rsvp()).rejects.toThrow(/payment\.refused: .* is paid in \S+ on solana:/);
      expect(sent).toEqual(['POST /events/e1/rsvp']);
      // The policy itself, as any caller of the official client meets it.
      const required = {
        x402Version: 2 as const,
        resource: { url: `${BASE_URL}/events/e1/rsvp` },
        accepts: [{ ...solanaOffer(OTHER_MINT), amount: '500000' }],
      };
      await expect(payer.sign(required)).rejects.toBeInstanceOf(PaymentRefusedError);
      expect(solanaSign).not.toHaveBeenCalled();
      expect(rpc.calls).toEqual([]);
    });

    it('pays the mints named in `assets` instead of USDC', async () => {
      const usdc = await wrapped([solanaOffer(USDC_DEVNET)], [OTHER_MINT]);
      await expect(usdc.rsvp()).rejects.toThrow(/payment\.refused/);
      expect(solanaSign).not.toHaveBeenCalled();
      const other = await wrapped([solanaOffer(OTHER_MINT)], [OTHER_MINT]);
      expect((await other.rsvp()).status).toBe(201);
      expect(solanaSign).toHaveBeenCalledTimes(1);
    });
  });
});

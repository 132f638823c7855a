import { address, createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { ReceiptKeySet, TicketView } from '@townhall/contracts';
import { SOLANA_DEVNET } from '@townhall/solana-local';
import { AgentClient } from '@townhall/sdk';
import {
  freePort,
  isPaidRequest,
  LostAnswerProxy,
  problemOf,
  StandaloneProcess,
  Topology,
} from '@townhall/testing';
import { signLedgerPayment, type PaymentRequirements } from '@townhall/x402';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements as RequirementsV2,
  SchemeNetworkClient,
} from '@x402/core/types';
import {
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt';
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { ExactSvmScheme } from '@x402/svm/exact/client';

const HOUR = 3_600_000;
/** Under the official SVM client's default spend cap ($1 of USDC). */
const PRICE = '500000';
const FUNDS = 5_000_000n;

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** One deployment selling tickets, on the ledger or on the local SVM. */
interface Sale {
  baseUrl: string;
  network: 'ledger' | 'svm';
  client(key?: AgentClient['key']): AgentClient;
  fund(agent: AgentClient): Promise<void>;
  /** The agent's money as the sale's rail counts it: its ledger balance, or its USDC on the chain. */
  holdings(agent: AgentClient, asset: string): Promise<bigint>;
  /** The official client's scheme for this rail, signing with the agent's key. */
  scheme(agent: AgentClient): Promise<SchemeNetworkClient>;
  stop(): Promise<void>;
}

/**
 * x402-ledger-v1 as an x402 scheme client: the official x402Client drives it like any other (its
 * selection, its extensions, its payload envelope); only the signature is the ledger's own.
 */
class LedgerScheme implements SchemeNetworkClient {
  readonly scheme = 'exact';
  constructor(private readonly agent: AgentClient) {}

  async createPaymentPayload(x402Version: number, accept: RequirementsV2) {
    const extra = accept.extra as { eventId: string; tierId: string; resource: string };
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: accept.network,
      maxAmountRequired: accept.amount,
      asset: accept.asset,
      payTo: accept.payTo,
      resource: extra.resource,
      description: '',
      mimeType: 'application/json',
      maxTimeoutSeconds: accept.maxTimeoutSeconds,
      extra,
    };
    const signed = signLedgerPayment(this.agent.key, requirements);
    return { x402Version, payload: signed.payload as unknown as Record<string, unknown> };
  }
}

/** The official client with the payment-identifier's client side: each payment carries `id`. */
function officialClient(
  scheme: SchemeNetworkClient,
  network: `${string}:${string}`,
  id: () => string,
): x402Client {
  const client = new x402Client();
  // The ledger's USDC is no default asset of the client's: its spend cap is said here.
  if (network.startsWith('ledger:'))
    client.setSpendControls({ allowedAssets: [{ network, asset: 'USDC', maxAmountPerPayment: PRICE }] });
  return client.register(network, scheme).registerExtension({
    key: PAYMENT_IDENTIFIER,
    enrichPaymentPayload: async (payload: PaymentPayload) => {
      const extensions = structuredClone(payload.extensions ?? {});
      appendPaymentIdentifierToExtensions(extensions, id());
      return { ...payload, extensions };
    },
  });
}

/** A single-price event of `host`'s, tomorrow. */
async function paidEvent(host: AgentClient): Promise<string> {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  const event = await host.events.create({
    title: 'Paid, with x402 extensions',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
    ticketing: { mode: 'single', price: PRICE },
  });
  return event.id;
}

/** The 402 of an unpaid RSVP as the official HTTP client reads it (the v2 PAYMENT-REQUIRED). */
async function paymentRequired(agent: AgentClient, eventId: string): Promise<PaymentRequired> {
  const refused = await problemOf(agent.request('POST', `/events/${eventId}/rsvp`));
  expect(refused.status).toBe(402);
  return new x402HTTPClient(new x402Client()).getPaymentRequiredResponse(
    (name) => refused.headers.get(name),
    refused.problem,
  );
}

function pay(agent: AgentClient, eventId: string, header: string) {
  return agent.request<TicketView>('POST', `/events/${eventId}/rsvp`, {
    headers: { 'payment-signature': header },
  });
}

function x402Extensions(sale: () => Sale): void {
  let host: AgentClient;
  let keys: ReceiptKeySet;

  beforeAll(async () => {
    host = sale().client();
    const response = await fetch(`${sale().baseUrl}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    keys = (await response.json()) as ReceiptKeySet;
    expect(keys.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', kid: expect.any(String) });
  });

  const keyOf = (jws: string) => {
    const { kid } = JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()) as { kid: string };
    const key = keys.keys.find((candidate) => candidate.kid === kid);
    expect(key).toBeDefined();
    return key!;
  };

  async function buyer(): Promise<{
    agent: AgentClient;
    client: (id: string) => x402Client;
    asset?: string;
  }> {
    const agent = sale().client();
    await sale().fund(agent);
    const scheme = await sale().scheme(agent);
    const network = sale().network === 'ledger' ? 'ledger:*' : (SOLANA_DEVNET as `${string}:${string}`);
    return { agent, client: (id) => officialClient(scheme, network, () => id) };
  }

  async function signed(client: x402Client, required: PaymentRequired) {
    const payload = await client.createPaymentPayload(required);
    return {
      payload,
      header: new x402HTTPClient(client).encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!,
    };
  }

  it('declares payment-identifier, signs its offers and describes the RSVP for the bazaar, as the package checks', async () => {
    const eventId = await paidEvent(host);
    const required = await paymentRequired(sale().client(), eventId);
    expect(required.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });

    const offers = extractOffersFromPaymentRequired(required);
    expect(offers).toHaveLength(required.accepts.length);
    const [offer] = decodeSignedOffers(offers);
    expect(findAcceptsObjectFromSignedOffer(offer!, required.accepts)).toEqual(required.accepts[0]);
    const signedOffer = offers[0] as JWSSignedOffer;
    expect(await verifyOfferSignatureJWS(signedOffer, keyOf(signedOffer.signature))).toMatchObject({
      resourceUrl: required.accepts[0]!.extra['resource'],
      amount: PRICE,
      payTo: host.agentId,
      network: required.accepts[0]!.network,
    });

    const bazaar = required.extensions?.['bazaar'] as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({
      valid: true,
    });
    expect(bazaar).toMatchObject({
      routeTemplate: '/events/:id/rsvp',
      info: {
        input: {
          type: 'http',
          method: 'POST',
          bodyType: 'json',
          body: { tierId: 'general' },
          pathParams: { id: eventId },
        },
        output: { type: 'json', example: { eventId, status: 'active' } },
      },
    });
    // What a facilitator's discovery lists, from the payment the official client built.
    const { client } = await buyer();
    const { payload } = await signed(client(generatePaymentId()), required);
    const discovered = extractDiscoveryInfo(payload, required.accepts[0]!);
    expect(discovered).toMatchObject({
      resourceUrl: `${new URL(required.resource.url).origin}/events/:id/rsvp`,
      method: 'POST',
      x402Version: 2,
    });
  });

  it('answers a payment retried after a lost answer with its ticket and receipt: one ticket, one transfer', async () => {
    const eventId = await paidEvent(host);
    const { agent, client } = await buyer();
    const required = await paymentRequired(agent, eventId);
    const asset = required.accepts[0]!.asset;
    const before = await sale().holdings(agent, asset);
    const id = generatePaymentId();
    const { payload, header } = await signed(client(id), required);
    expect(payload.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { id } });

    // The payment goes through; its answer is lost on the way back.
    const proxy = await LostAnswerProxy.start(sale().baseUrl);
    try {
      proxy.loses = isPaidRequest;
      const lost = new AgentClient({ baseUrl: proxy.url, key: agent.key, audience: agent.audience });
      await expect(pay(lost, eventId, header)).rejects.toThrow();
      expect(proxy.lost).toEqual([`POST /events/${eventId}/rsvp -> 201`]);
    } finally {
      await proxy.stop();
    }

    // The same payment again, in a new signed request without an Idempotency-Key: its ticket.
    const retried = await pay(agent, eventId, header);
    expect(retried.status).toBe(200);
    const held = (await agent.request<TicketView>('GET', `/events/${eventId}/rsvp`)).data;
    expect(retried.data.id).toBe(held.id);
    expect(await sale().holdings(agent, asset)).toBe(before - BigInt(PRICE));

    // Its PAYMENT-RESPONSE carries the receipt, which verifies against /.well-known/jwks.json.
    const settled = new x402HTTPClient(new x402Client()).getPaymentSettleResponse((name) =>
      retried.headers.get(name),
    );
    expect(settled).toMatchObject({ success: true, payer: agent.agentId });
    const receipt = extractReceiptFromResponse(
      new Response(null, { headers: { 'PAYMENT-RESPONSE': retried.headers.get('payment-response')! } }),
    ) as JWSSignedReceipt;
    expect(receipt.format).toBe('jws');
    const claims = await verifyReceiptSignatureJWS(receipt, keyOf(receipt.signature));
    expect(claims).toMatchObject({
      version: 1,
      resourceUrl: String(required.accepts[0]!.extra['resource']),
      payer: agent.agentId,
      amount: PRICE,
      asset,
      network: required.accepts[0]!.network,
      transaction: settled.transaction,
    });
    // The ticket keeps it: GET /events/{id}/rsvp answers it too.
    expect(held.receipt).toEqual(receipt);

    // The same id with another payment (for another event): 409, and nothing moves.
    const other = await paidEvent(host);
    const second = await signed(client(id), await paymentRequired(agent, other));
    const reused = await problemOf(pay(agent, other, second.header));
    expect({ status: reused.status, code: reused.code }).toEqual({ status: 409, code: 'payment.id_reused' });
    expect(await sale().holdings(agent, asset)).toBe(before - BigInt(PRICE));
    await expect(agent.request('GET', `/events/${other}/rsvp`)).rejects.toMatchObject({ status: 404 });
  });

  it('gives one ticket and one transfer to payments with the same id at once', async () => {
    const eventId = await paidEvent(host);
    const { agent, client } = await buyer();
    const required = await paymentRequired(agent, eventId);
    const asset = required.accepts[0]!.asset;
    const before = await sale().holdings(agent, asset);
    const id = generatePaymentId();
    const first = await signed(client(id), required);
    // Another payment under the same id, signed anew (on the ledger, another nonce).
    const second = await signed(client(id), required);
    const answers = await Promise.allSettled([
      pay(agent, eventId, first.header),
      pay(agent, eventId, first.header),
      pay(agent, eventId, second.header),
      pay(agent, eventId, second.header),
    ]);
    const statuses = answers.map((answer) =>
      answer.status === 'fulfilled' ? answer.value.status : (answer.reason as { status: number }).status,
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    // The others: the ticket (the same payment), or 409 payment.id_reused (the other one).
    for (const status of statuses) expect([200, 201, 409]).toContain(status);
    for (const answer of answers)
      if (answer.status === 'rejected') expect(answer.reason).toMatchObject({ code: 'payment.id_reused' });
    const ids = new Set(
      answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value.data.id] : [])),
    );
    expect(ids.size).toBe(1);
    expect(await sale().holdings(agent, asset)).toBe(before - BigInt(PRICE));
  });

  it('refuses a malformed payment-identifier with 400 validation.failed, never a 5xx, and charges nothing', async () => {
    const eventId = await paidEvent(host);
    const { agent, client } = await buyer();
    const required = await paymentRequired(agent, eventId);
    const asset = required.accepts[0]!.asset;
    const before = await sale().holdings(agent, asset);
    const { payload } = await signed(client(generatePaymentId()), required);
    const hostile: unknown[] = [
      'pay_0123456789abc\u0000',
      'pay_0123456789abc\ud800',
      'p'.repeat(2_000),
      12345,
      null,
      ['x'],
    ];
    for (const id of hostile) {
      const extensions = { ...payload.extensions, [PAYMENT_IDENTIFIER]: { info: { required: false, id } } };
      const header = base64Json({ ...payload, extensions });
      const refused = await problemOf(pay(agent, eventId, header));
      expect({ id, status: refused.status, code: refused.code }).toEqual({
        id,
        status: 400,
        code: 'validation.failed',
      });
    }
    const notAnObject = base64Json({
      ...payload,
      extensions: { [PAYMENT_IDENTIFIER]: 'pay_0123456789abcdef' },
    });
    expect((await problemOf(pay(agent, eventId, notAnObject))).status).toBe(400);
    expect(await sale().holdings(agent, asset)).toBe(before);
  });
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

function ledgerSale(baseUrl: string, client: Sale['client'], stop: () => Promise<void>): Sale {
  return {
    baseUrl,
    network: 'ledger',
    client,
    fund: async (agent) => void (await agent.ledger.faucet(String(FUNDS))),
    holdings: async (agent, asset) =>
      BigInt((await agent.ledger.balance()).balances.find((b) => b.asset === asset)?.amount ?? '0'),
    scheme: async (agent) => new LedgerScheme(agent),
    stop,
  };
}

function svmSale(baseUrl: string, rpcUrl: string, client: Sale['client'], stop: () => Promise<void>): Sale {
  return {
    baseUrl,
    network: 'svm',
    client,
    fund: async (agent) => void (await agent.ledger.faucet(String(FUNDS), undefined, SOLANA_DEVNET)),
    holdings: (agent, mint) => tokens(rpcUrl, agent.agentId, mint),
    scheme: async (agent) =>
      new ExactSvmScheme(await createKeyPairSignerFromPrivateKeyBytes(agent.key.secretKey), { rpcUrl }),
    stop,
  };
}

/** The checks, on a deployment `start` makes and the describe stops. */
function onDeployment(start: () => Promise<Sale>): void {
  let sale: Sale | undefined;
  beforeAll(async () => {
    sale = await start();
  });
  afterAll(() => sale?.stop());
  x402Extensions(() => sale!);
}

describe('x402 extensions on the ledger, distributed', () => {
  onDeployment(async () => {
    const topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true', LEDGER_FAUCET_MAX_AMOUNT: String(FUNDS) },
    });
    return ledgerSale(
      topology.baseUrl,
      (key) => topology.client(key),
      () => topology.stop(),
    );
  });
});

describe('x402 extensions on the ledger, standalone', () => {
  onDeployment(async () => {
    const standalone = await StandaloneProcess.start({ LEDGER_FAUCET_MAX_AMOUNT: String(FUNDS) });
    const audience = standalone.baseUrl.replace('127.0.0.1', 'localhost');
    return ledgerSale(
      standalone.baseUrl,
      (key) => new AgentClient({ baseUrl: standalone.baseUrl, audience, ...(key ? { key } : {}) }),
      () => standalone.stop(),
    );
  });
});

describe('x402 extensions on the local SVM (solana-local), distributed', () => {
  onDeployment(async () => {
    const port = await freePort();
    const topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true', LEDGER_FAUCET_MAX_AMOUNT: String(FUNDS) },
      serviceEnv: { ticketing: { X402_FACILITATOR: 'solana-local', SOLANA_LOCAL_RPC_PORT: String(port) } },
    });
    return svmSale(
      topology.baseUrl,
      `http://127.0.0.1:${port}`,
      (key) => topology.client(key),
      () => topology.stop(),
    );
  });
});

describe('x402 extensions on the local SVM (solana-local), standalone', () => {
  onDeployment(async () => {
    const port = await freePort();
    const standalone = await StandaloneProcess.start({
      X402_FACILITATOR: 'solana-local',
      SOLANA_LOCAL_RPC_PORT: String(port),
      LEDGER_FAUCET_MAX_AMOUNT: String(FUNDS),
    });
    const audience = standalone.baseUrl.replace('127.0.0.1', 'localhost');
    return svmSale(
      standalone.baseUrl,
      `http://127.0.0.1:${port}`,
      (key) => new AgentClient({ baseUrl: standalone.baseUrl, audience, ...(key ? { key } : {}) }),
      () => standalone.stop(),
    );
  });
});

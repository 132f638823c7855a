import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit';
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import {
  land,
  onFreshBlockhash,
  pushTransfers,
  signTransfer,
  startLocalSvm,
  type LocalSvm,
} from '@townhall/testing/solana';
import type { PaymentPayload } from '../payload.js';
import { readExactSvmTransfer, svmTransactionOf } from './exact-svm-transfer.js';
import { DEFAULT_SEARCH_BOUNDS, type ChainSearchBounds } from './payment-search.js';
import { SolanaChain, type ChainVerdict, type PaymentLook } from './solana-chain.js';

// The chain's verdict on a payment a facilitator left open (SolanaChain over PaymentSearch),
// against solana-local's JSON-RPC (getSignaturesForAddress with `before`, memos, blockTime) through
// a proxy that counts what the search asks and can make the RPC list no memos or no blockTime.

const PRICE = 500_000n;

/** The signature the payer put on a payment's transaction (base58), if it signed. */
function payerSignatureOf(payment: PaymentPayload, payer: string): string | undefined {
  const { signatures } = getTransactionDecoder().decode(getBase64Encoder().encode(svmTransactionOf(payment)));
  const signature = (signatures as Record<string, Uint8Array | null>)[payer];
  return signature ? getBase58Decoder().decode(signature) : undefined;
}
const MEMO = 'townhall:search-spec';

/** A JSON-RPC proxy in front of the local RPC: every call it forwards, and what it changes. */
class CountingRpc {
  readonly calls: Array<{ method: string; params: unknown[] }> = [];
  /** List every entry without its memo, as an RPC that does not report memos. */
  hideMemos = false;
  /** List every entry without its blockTime, as Solana does when it has none. */
  hideBlockTimes = false;
  url = '';
  private readonly server: Server;

  constructor(private readonly target: string) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const call = JSON.parse(body) as { method: string; params?: unknown[] };
        this.calls.push({ method: call.method, params: call.params ?? [] });
        void this.forward(body, call.method).then((text) =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(text),
        );
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  count(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  /** The `before` cursor of each getSignaturesForAddress call, in order. */
  cursors(): Array<string | undefined> {
    return this.calls
      .filter((call) => call.method === 'getSignaturesForAddress')
      .map((call) => (call.params[1] as { before?: string } | undefined)?.before);
  }

  reset(): void {
    this.calls.length = 0;
  }

  private async forward(body: string, method: string): Promise<string> {
    const answer = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await answer.text();
    if (method !== 'getSignaturesForAddress' || (!this.hideMemos && !this.hideBlockTimes)) return text;
    const json = JSON.parse(text) as { result: Array<Record<string, unknown>> };
    for (const entry of json.result) {
      if (this.hideMemos) entry['memo'] = null;
      if (this.hideBlockTimes) entry['blockTime'] = null;
    }
    return JSON.stringify(json);
  }
}

describe('SolanaChain: the verdict on a payment, from a complete search of its token accounts', () => {
  let svm: LocalSvm;
  let rpc: CountingRpc;

  beforeAll(async () => {
    svm = await startLocalSvm({ blockhashLifetimeMs: 400 });
    rpc = await new CountingRpc(svm.rpcUrl).start();
  });
  afterAll(async () => {
    await rpc?.stop();
    await svm?.stop();
  });
  beforeEach(() => {
    rpc.reset();
    rpc.hideMemos = false;
    rpc.hideBlockTimes = false;
  });

  const chainWith = (bounds: Partial<ChainSearchBounds> = {}) =>
    new SolanaChain(rpc.url, { ...DEFAULT_SEARCH_BOUNDS, ...bounds });

  /** A buyer with USDC, a host with a token account, and the buyer's payment to the host (signed, not sent). */
  async function aPayment(): Promise<{
    buyer: AgentKey;
    host: AgentKey;
    payment: PaymentPayload;
    since: Date;
  }> {
    const [buyer, host] = [generateAgentKey(), generateAgentKey()];
    await svm.chain.faucet(buyer.agentId, 10n * PRICE);
    await svm.chain.ensureTokenAccount(host.agentId);
    // Our record of the payment is written before the facilitator is asked to send it.
    const since = new Date();
    const payment = await signTransfer(svm.chain, svm.rpcUrl, buyer, host.agentId, {
      amount: PRICE,
      memo: MEMO,
    });
    return { buyer, host, payment, since };
  }

  /** aPayment, landed. */
  const aLandedPayment = () =>
    onFreshBlockhash(async () => {
      const paid = await aPayment();
      return { ...paid, transaction: await land(svm.chain, paid.payment) };
    });

  /** `count` entries in `owner`'s token account history that are not the payment (faucet mints, their own memo). */
  async function bury(owner: string, count: number): Promise<void> {
    for (let i = 0; i < count; i += 1) await svm.chain.faucet(owner, 1n);
  }

  async function expired(payment: PaymentPayload): Promise<void> {
    const { blockhash } = readExactSvmTransfer(payment);
    while (svm.chain.isBlockhashValid(blockhash)) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** Asks until the verdict is no longer `incomplete`, each look from where the last stopped. */
  async function lookUntilDecided(
    chain: SolanaChain,
    payment: PaymentPayload,
    look: PaymentLook,
  ): Promise<{ verdict: ChainVerdict; looks: ChainVerdict[] }> {
    const looks: ChainVerdict[] = [];
    let progress = look.progress;
    for (;;) {
      const verdict = await chain.verdict(payment, { ...look, progress });
      looks.push(verdict);
      if (verdict.state !== 'incomplete') return { verdict, looks };
      if (looks.length > 50) throw new Error('the search never completes');
      progress = verdict.progress;
    }
  }

  it('finds a payment under more than 1,000 newer entries of its source, fetching only what names its memo', async () => {
    const { buyer, payment, since, transaction } = await aLandedPayment();
    await bury(buyer.agentId, 1_001);
    // Three transfers into the buyer's account whose memos contain the payment's: fetched, and not it.
    const spammer = generateAgentKey();
    await svm.chain.faucet(spammer.agentId, 10n);
    await pushTransfers(svm.chain, svm.rpcUrl, spammer, buyer.agentId, { count: 3, memo: MEMO });
    rpc.reset();

    expect(await chainWith().verdict(payment, { since })).toEqual({ state: 'landed', transaction });
    // Two pages of 1,000 (the second reaches it); the three look-alikes and the payment fetched.
    expect(rpc.cursors()).toHaveLength(2);
    expect(rpc.count('getTransaction')).toBe(4);
  });

  it('is expired only once the search is complete: the history ends (a short page)', async () => {
    const { buyer, payment, since } = await aPayment();
    await bury(buyer.agentId, 25);
    await expired(payment);
    rpc.reset();

    expect(await chainWith({ pageSize: 10 }).verdict(payment, { since })).toEqual({ state: 'expired' });
    // 27 entries (the account's creation, the first mint, 25 more): pages of 10, 10 and 7.
    expect(rpc.cursors()).toHaveLength(3);
  });

  it('is complete at the first entry older than the payment’s record less the clock margin', async () => {
    const [buyer, host] = [generateAgentKey(), generateAgentKey()];
    await bury(buyer.agentId, 15);
    await svm.chain.ensureTokenAccount(host.agentId);
    // blockTime is in whole seconds: the entries before the record are two seconds older than it.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const since = new Date();
    const payment = await signTransfer(svm.chain, svm.rpcUrl, buyer, host.agentId, {
      amount: 1n,
      memo: MEMO,
    });
    await bury(buyer.agentId, 12);
    await expired(payment);
    rpc.reset();

    const chain = chainWith({ pageSize: 5, clockSkewMarginMs: 1_000 });
    expect(await chain.verdict(payment, { since })).toEqual({ state: 'expired' });
    // 12 entries after the record (pages of 5, 5, 2+3 older): it stops in the third page, not at the end.
    expect(rpc.cursors()).toHaveLength(3);
  });

  it('does not end at entries without a blockTime', async () => {
    const { buyer, payment, transaction } = await aLandedPayment();
    await bury(buyer.agentId, 30);
    rpc.hideBlockTimes = true;

    // As if our record were written an hour from now: every entry is older, but none says so.
    const since = new Date(Date.now() + 3_600_000);
    expect(await chainWith({ pageSize: 10 }).verdict(payment, { since })).toEqual({
      state: 'landed',
      transaction,
    });
  });

  it('fetches every entry in the window when the RPC lists no memos', async () => {
    const { buyer, payment, since, transaction } = await aLandedPayment();
    await bury(buyer.agentId, 20);
    rpc.hideMemos = true;
    rpc.reset();

    expect(await chainWith().verdict(payment, { since })).toEqual({ state: 'landed', transaction });
    expect(rpc.count('getTransaction')).toBe(21);
  });

  it('is unknown while the blockhash is valid, however complete the search', async () => {
    const { payment, since } = await aPayment();
    expect(await chainWith().verdict(payment, { since })).toEqual({ state: 'unknown' });
  });

  it('stops at its page bound, incomplete, and each next look goes on from where the last stopped', async () => {
    const { buyer, host, payment, since } = await aPayment();
    await bury(buyer.agentId, 60);
    await bury(host.agentId, 60);
    await expired(payment);
    rpc.reset();

    const { verdict, looks } = await lookUntilDecided(
      chainWith({ pageSize: 10, pagesPerAccount: 2 }),
      payment,
      { since },
    );
    expect(verdict).toEqual({ state: 'expired' });
    // Each look reads 20 entries of each account; the source's 62 take four looks to the end.
    expect(looks.map((look) => look.state)).toEqual(['incomplete', 'incomplete', 'incomplete', 'expired']);
    expect(looks[0]).toEqual({
      state: 'incomplete',
      progress: { source: expect.any(String), destination: expect.any(String) },
    });
    // Never the same page twice: every page after the first of the search starts at a new cursor.
    const cursors = rpc.cursors();
    expect(new Set(cursors.filter(Boolean)).size).toBe(cursors.filter(Boolean).length);
  });

  it('finds a landed payment deeper than one look reaches, in a later look', async () => {
    const { buyer, host, payment, since, transaction } = await aLandedPayment();
    await bury(buyer.agentId, 45);
    await bury(host.agentId, 45);
    await expired(payment);

    const { verdict, looks } = await lookUntilDecided(
      chainWith({ pageSize: 10, pagesPerAccount: 2 }),
      payment,
      { since },
    );
    expect(verdict).toEqual({ state: 'landed', transaction });
    expect(looks.map((look) => look.state)).toEqual(['incomplete', 'incomplete', 'landed']);
  });

  it('searches the destination when the source stops at its bound', async () => {
    const { buyer, payment, since, transaction } = await aLandedPayment();
    await bury(buyer.agentId, 60);
    await expired(payment);

    expect(await chainWith({ pageSize: 10, pagesPerAccount: 2 }).verdict(payment, { since })).toEqual({
      state: 'landed',
      transaction,
    });
  });

  it('stops at its fetch bound when many entries name the memo, and goes on later', async () => {
    const { buyer, host, payment, since, transaction } = await aLandedPayment();
    const spammer = generateAgentKey();
    await svm.chain.faucet(spammer.agentId, 100n);
    // Look-alikes in both accounts, newer than the payment: every one must be fetched.
    await pushTransfers(svm.chain, svm.rpcUrl, spammer, buyer.agentId, { count: 8, memo: MEMO });
    await pushTransfers(svm.chain, svm.rpcUrl, spammer, host.agentId, { count: 8, memo: MEMO });
    await expired(payment);
    rpc.reset();

    const chain = chainWith({ fetchesPerAccount: 3 });
    const { verdict, looks } = await lookUntilDecided(chain, payment, { since });
    expect(verdict).toEqual({ state: 'landed', transaction });
    // 8 look-alikes and then the payment in each account, 3 fetched of each a look: the source's
    // third look reaches it.
    expect(looks.map((look) => look.state)).toEqual(['incomplete', 'incomplete', 'landed']);
    expect(rpc.count('getTransaction')).toBe(3 + 3 + 3 + 3 + 3);
  });

  it('gives the destination its own fetches when look-alikes flood the source', async () => {
    const { buyer, payment, since, transaction } = await aLandedPayment();
    const spammer = generateAgentKey();
    await svm.chain.faucet(spammer.agentId, 100n);
    await pushTransfers(svm.chain, svm.rpcUrl, spammer, buyer.agentId, { count: 8, memo: MEMO });
    await expired(payment);

    expect(await chainWith({ fetchesPerAccount: 3 }).verdict(payment, { since })).toEqual({
      state: 'landed',
      transaction,
    });
  });

  it('starts again when the node no longer knows where the last look stopped', async () => {
    const { buyer, payment, since } = await aPayment();
    // A well-formed signature the chain never saw: the buyer's own on a payment never sent.
    const other = await aPayment();
    const unknown = payerSignatureOf(other.payment, other.buyer.agentId)!;
    await bury(buyer.agentId, 5);
    await expired(payment);

    const chain = chainWith();
    const first = await chain.verdict(payment, {
      since,
      progress: { source: unknown, destination: unknown },
    });
    // Solana answers a `before` it does not know with an empty page: that is not the end.
    expect(first).toEqual({ state: 'incomplete', progress: {} });
    expect(await chain.verdict(payment, { since, progress: {} })).toEqual({ state: 'expired' });
  });

  it('reads a landing that failed as failed', async () => {
    // The buyer's funds are gone before the payment lands: it lands, runs, and fails.
    const { buyer, payment, since, transaction } = await onFreshBlockhash(async () => {
      const paid = await aPayment();
      const elsewhere = generateAgentKey();
      await svm.chain.ensureTokenAccount(elsewhere.agentId);
      const drain = await signTransfer(svm.chain, svm.rpcUrl, paid.buyer, elsewhere.agentId, {
        amount: 10n * PRICE,
        memo: 'elsewhere',
      });
      await land(svm.chain, drain);
      return { ...paid, transaction: await land(svm.chain, paid.payment) };
    });
    expect(svm.chain.transactionStatus(transaction)).toMatchObject({ ok: false });
    await bury(buyer.agentId, 3);

    expect(await chainWith().verdict(payment, { since })).toEqual({
      state: 'failed',
      transaction,
      error: expect.any(String),
    });
  });
});

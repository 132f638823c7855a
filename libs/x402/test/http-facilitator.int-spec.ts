import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestFacilitator, type FacilitatorMode } from '@townhall/testing';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { FACILITATOR_FAILURES } from '../src/facilitator.js';
import { HttpFacilitator } from '../src/server.js';
import { decodePaymentHeader, signLedgerPayment } from '../src/payload.js';
import { toPaymentRequirementsV2 } from '../src/requirements.js';
import { NOW, payer, tierRequirements } from './fixtures.js';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const TRANSACTION =
  '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

// The facilitator's side of the x402 spec, checked with @x402/core's own (zod 3) schemas: if our
// client sent anything an x402 facilitator would not parse, it answers 400 and the test fails.
let server: TestFacilitator;
let baseUrl: string;
let received: TestFacilitator['received'];

beforeAll(async () => {
  server = await TestFacilitator.start({
    payer: payer.agentId,
    transaction: TRANSACTION,
    supported: {
      kinds: [
        { x402Version: 1, scheme: 'exact', network: 'ledger:staging' },
        {
          x402Version: 2,
          scheme: 'exact',
          network: SOLANA,
          extra: { feePayer: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5' },
        },
      ],
      extensions: [],
      signers: { 'solana:*': ['CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5'] },
    },
  });
  baseUrl = server.url;
  received = server.received;
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  server.reset();
});

function setMode(next: FacilitatorMode): void {
  server.mode = next;
}

const vip = tierRequirements('vip');
const ledgerPayment = signLedgerPayment(payer, vip, { now: NOW });

// A v2 USDC-on-Solana style payment, as a v2 client would put it in PAYMENT-SIGNATURE.
const solanaRequirements = tierRequirements('vip', {
  network: SOLANA,
  asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
});
const solanaPayment = decodePaymentHeader(
  encodePaymentSignatureHeader({
    x402Version: 2,
    resource: { url: solanaRequirements.resource },
    accepted: { ...toPaymentRequirementsV2(solanaRequirements), network: SOLANA },
    payload: {
      transaction: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    },
  }),
);

describe('HttpFacilitator against an x402 facilitator over HTTP', () => {
  it('verifies and settles a v1 payment with bodies the facilitator schemas accept', async () => {
    const facilitator = new HttpFacilitator(baseUrl);
    await expect(facilitator.verify(ledgerPayment, vip)).resolves.toEqual({
      isValid: true,
      payer: payer.agentId,
    });
    await expect(facilitator.settle(ledgerPayment, vip)).resolves.toEqual({
      success: true,
      transaction: TRANSACTION,
      network: 'ledger:staging',
      payer: payer.agentId,
    });
    expect(received.map((r) => r.path)).toEqual(['/verify', '/settle']);
    expect(received[1]?.body).toEqual({
      x402Version: 1,
      paymentPayload: ledgerPayment,
      paymentRequirements: vip,
    });
  });

  it('sends a v2 payment with v2 requirements (amount, no maxAmountRequired)', async () => {
    const settled = await new HttpFacilitator(baseUrl).settle(solanaPayment, solanaRequirements);
    expect(settled).toMatchObject({ success: true, transaction: TRANSACTION, network: SOLANA });
    const body = received[0]?.body;
    expect(body?.x402Version).toBe(2);
    expect(body?.paymentRequirements).toMatchObject({ network: SOLANA, amount: '2500000' });
    expect(body?.paymentRequirements).not.toHaveProperty('maxAmountRequired');
    expect(body?.paymentPayload).toMatchObject({ x402Version: 2, accepted: { network: SOLANA } });
  });

  it('treats success: false under HTTP 200 as a failure', async () => {
    setMode('refuse');
    const facilitator = new HttpFacilitator(baseUrl);
    await expect(facilitator.verify(ledgerPayment, vip)).resolves.toEqual({
      isValid: false,
      invalidReason: 'insufficient_funds',
      payer: payer.agentId,
    });
    await expect(facilitator.settle(ledgerPayment, vip)).resolves.toEqual({
      success: false,
      errorReason: 'insufficient_funds',
      transaction: '',
      network: 'ledger:staging',
      payer: payer.agentId,
    });
  });

  it('treats HTTP 500 as a failure, without throwing', async () => {
    setMode('error500');
    const facilitator = new HttpFacilitator(baseUrl);
    const settled = await facilitator.settle(ledgerPayment, vip);
    expect(settled).toMatchObject({
      success: false,
      errorReason: FACILITATOR_FAILURES.httpError,
      transaction: '',
    });
    expect(settled.errorMessage).toContain('(500)');
    await expect(facilitator.verify(ledgerPayment, vip)).resolves.toMatchObject({
      isValid: false,
      invalidReason: FACILITATOR_FAILURES.httpError,
    });
    await expect(facilitator.supported()).resolves.toBeDefined();
  });

  it.each<FacilitatorMode>(['hang', 'stall-body'])(
    'gives up on a facilitator that does not finish (%s) at the timeout',
    async (m) => {
      setMode(m);
      const started = Date.now();
      const settled = await new HttpFacilitator(baseUrl, { timeoutMs: 300 }).settle(ledgerPayment, vip);
      expect(settled).toMatchObject({ success: false, errorReason: FACILITATOR_FAILURES.timeout });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it('reads /supported', async () => {
    await expect(new HttpFacilitator(`${baseUrl}/`).supported()).resolves.toEqual({
      kinds: [
        { x402Version: 1, scheme: 'exact', network: 'ledger:staging' },
        // kinds[].extra is kept: Solana exact's 402 carries the facilitator's feePayer from it.
        {
          x402Version: 2,
          scheme: 'exact',
          network: SOLANA,
          extra: { feePayer: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5' },
        },
      ],
    });
  });

  it('fails, without throwing, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const settled = await new HttpFacilitator(`http://127.0.0.1:${port}`).settle(ledgerPayment, vip);
    expect(settled).toMatchObject({ success: false, errorReason: FACILITATOR_FAILURES.unreachable });
  });

  it('has a test server that really refuses bodies outside the x402 schemas', async () => {
    const { payTo: _payTo, ...withoutPayTo } = vip;
    const response = await fetch(`${baseUrl}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        x402Version: 1,
        paymentPayload: ledgerPayment,
        paymentRequirements: withoutPayTo,
      }),
    });
    expect(response.status).toBe(400);
    expect(received).toHaveLength(0);
  });
});

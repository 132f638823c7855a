import { NOW, payer, tierRequirements } from '../test/fixtures.js';
import { FACILITATOR_FAILURES } from './facilitator.js';
import { HttpFacilitator } from './server.js';
import { signLedgerPayment } from './payload.js';

const vip = tierRequirements('vip');
const payment = signLedgerPayment(payer, vip, { now: NOW });

interface Call {
  url: string;
  init: RequestInit | undefined;
}

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/**
 * Makes the global fetch (the one @x402/core's HTTPFacilitatorClient calls) answer every call with
 * one canned response, and records what it was asked.
 */
function cannedFetch(answer: () => Response | Promise<Response>): { calls: Call[] } {
  const calls: Call[] = [];
  const fake = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({ url: String(input), init });
    return Promise.resolve().then(answer);
  };
  globalThis.fetch = fake as typeof fetch;
  return { calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('HttpFacilitator (over @x402/core HTTPFacilitatorClient, the global fetch stubbed)', () => {
  it('posts the x402 body to <base>/settle, without a doubled slash', async () => {
    const { calls } = cannedFetch(() =>
      json(200, { success: true, transaction: '0xabc', network: 'ledger:staging', payer: payer.agentId }),
    );
    const settled = await new HttpFacilitator('https://facilitator.example.com/x402/').settle(payment, vip);
    expect(settled).toEqual({
      success: true,
      transaction: '0xabc',
      network: 'ledger:staging',
      payer: payer.agentId,
    });
    expect(calls[0]?.url).toBe('https://facilitator.example.com/x402/settle');
    expect(calls[0]?.init?.method).toBe('POST');
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({
      x402Version: 1,
      paymentPayload: payment,
      paymentRequirements: vip,
    });
  });

  it('takes the reason a non-2xx refusal carries', async () => {
    cannedFetch(() =>
      json(400, {
        success: false,
        errorReason: 'insufficient_funds',
        transaction: '',
        network: 'ledger:staging',
      }),
    );
    const settled = await new HttpFacilitator('https://f.example.com').settle(payment, vip);
    expect(settled).toMatchObject({ success: false, errorReason: 'insufficient_funds', transaction: '' });
  });

  it('treats a 2xx that says success but is not a settle response as a failure', async () => {
    cannedFetch(() => json(200, { success: true }));
    const settled = await new HttpFacilitator('https://f.example.com').settle(payment, vip);
    expect(settled).toMatchObject({ success: false, errorReason: FACILITATOR_FAILURES.invalidResponse });
  });

  it('treats a 2xx that is not JSON as a failure', async () => {
    cannedFetch(() => new Response('<html>ok</html>', { status: 200 }));
    const verified = await new HttpFacilitator('https://f.example.com').verify(payment, vip);
    expect(verified).toMatchObject({ isValid: false, invalidReason: FACILITATOR_FAILURES.invalidResponse });
  });

  it('answers a network error with a failure, never a rejection', async () => {
    cannedFetch(() => Promise.reject(new TypeError('fetch failed')));
    const facilitator = new HttpFacilitator('https://f.example.com');
    await expect(facilitator.settle(payment, vip)).resolves.toMatchObject({
      success: false,
      errorReason: FACILITATOR_FAILURES.unreachable,
      network: 'ledger:staging',
    });
    await expect(facilitator.verify(payment, vip)).resolves.toMatchObject({
      isValid: false,
      invalidReason: FACILITATOR_FAILURES.unreachable,
    });
    await expect(facilitator.supported()).rejects.toMatchObject({ reason: 'settlement_failed' });
  });

  it('does not call the facilitator with requirements x402 would reject', async () => {
    const { calls } = cannedFetch(() => json(200, { isValid: true }));
    const broken = tierRequirements('vip', { maxTimeoutSeconds: 0 });
    const verified = await new HttpFacilitator('https://f.example.com').verify(payment, broken);
    expect(verified).toMatchObject({
      isValid: false,
      invalidReason: FACILITATOR_FAILURES.invalidRequirements,
    });
    expect(calls).toHaveLength(0);
  });

  it('refuses a base URL that is not http(s) and a timeout that is not a positive integer', () => {
    expect(() => new HttpFacilitator('ftp://f.example.com')).toThrow(RangeError);
    expect(() => new HttpFacilitator('not a url')).toThrow(RangeError);
    expect(() => new HttpFacilitator('https://f.example.com', { timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new HttpFacilitator('https://f.example.com', { timeoutMs: 1.5 })).toThrow(RangeError);
  });
});

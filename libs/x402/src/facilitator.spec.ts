import { NOW, payer, tierRequirements } from '../test/fixtures.js';
import { FACILITATOR_FAILURES, HttpFacilitator } from './facilitator.js';
import { signLedgerPayment } from './payload.js';

const vip = tierRequirements('vip');
const payment = signLedgerPayment(payer, vip, { now: NOW });

interface Call {
  url: string;
  init: RequestInit | undefined;
}

/** A fetch that answers every call with one canned response and records what it was asked. */
function cannedFetch(answer: () => Response | Promise<Response>): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fake = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({ url: String(input), init });
    return Promise.resolve().then(answer);
  };
  return { fetch: fake as typeof fetch, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('HttpFacilitator (injected fetch)', () => {
  it('posts the x402 body to <base>/settle, without a doubled slash', async () => {
    const { fetch, calls } = cannedFetch(() =>
      json(200, { success: true, transaction: '0xabc', network: 'ledger:staging', payer: payer.agentId }),
    );
    const settled = await new HttpFacilitator('https://facilitator.example.com/x402/', { fetch }).settle(
      payment,
      vip,
    );
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
    const { fetch } = cannedFetch(() =>
      json(400, {
        success: false,
        errorReason: 'insufficient_funds',
        transaction: '',
        network: 'ledger:staging',
      }),
    );
    const settled = await new HttpFacilitator('https://f.example.com', { fetch }).settle(payment, vip);
    expect(settled).toMatchObject({ success: false, errorReason: 'insufficient_funds', transaction: '' });
  });

  it('treats a 2xx that says success but is not a settle response as a failure', async () => {
    const { fetch } = cannedFetch(() => json(200, { success: true }));
    const settled = await new HttpFacilitator('https://f.example.com', { fetch }).settle(payment, vip);
    expect(settled).toMatchObject({ success: false, errorReason: FACILITATOR_FAILURES.invalidResponse });
  });

  it('treats a 2xx that is not JSON as a failure', async () => {
    const { fetch } = cannedFetch(() => new Response('<html>ok</html>', { status: 200 }));
    const verified = await new HttpFacilitator('https://f.example.com', { fetch }).verify(payment, vip);
    expect(verified).toMatchObject({ isValid: false, invalidReason: FACILITATOR_FAILURES.invalidResponse });
  });

  it('answers a network error with a failure, never a rejection', async () => {
    const { fetch } = cannedFetch(() => Promise.reject(new TypeError('fetch failed')));
    const facilitator = new HttpFacilitator('https://f.example.com', { fetch });
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
    const { fetch, calls } = cannedFetch(() => json(200, { isValid: true }));
    const broken = tierRequirements('vip', { maxTimeoutSeconds: 0 });
    const verified = await new HttpFacilitator('https://f.example.com', { fetch }).verify(payment, broken);
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

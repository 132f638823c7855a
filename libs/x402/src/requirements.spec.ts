import { decodePaymentRequiredHeader } from '@x402/core/http';
import { PaymentRequiredV1Schema, PaymentRequiredV2Schema } from '@x402/core/schemas';
import { AUDIENCE, tierRequirements } from '../test/fixtures.js';
import {
  encodePaymentRequiredHeader,
  ledgerNetwork,
  paymentRequiredBody,
  toPaymentRequiredV2,
} from './requirements.js';

const general = tierRequirements('general', { maxAmountRequired: '1000000' });
const vip = tierRequirements('vip');

describe('ledgerNetwork', () => {
  it('names the ledger of one environment', () => {
    expect(ledgerNetwork('production')).toBe('ledger:production');
    expect(ledgerNetwork('staging')).toBe('ledger:staging');
  });

  it.each(['', 'a:b', 'with space', 'line\nbreak', 'x'.repeat(33)])('refuses %j', (environment) => {
    expect(() => ledgerNetwork(environment)).toThrow(RangeError);
  });
});

describe('paymentRequiredBody', () => {
  it('is the x402 v1 402 body, one accept per tier', () => {
    const body = paymentRequiredBody('X-PAYMENT header is required', [general, vip]);
    expect(body).toEqual({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [general, vip] });
    expect(PaymentRequiredV1Schema.safeParse(body).success).toBe(true);
  });

  it('survives a JSON round trip unchanged', () => {
    const body = paymentRequiredBody('payment required', [general, vip]);
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });
});

describe('encodePaymentRequiredHeader', () => {
  const body = paymentRequiredBody('X-PAYMENT header is required', [general, vip]);
  const header = encodePaymentRequiredHeader(body);

  it('is standard base64 that @x402/core decodes and its v2 schema accepts', () => {
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const decoded = decodePaymentRequiredHeader(header);
    expect(PaymentRequiredV2Schema.safeParse(decoded).success).toBe(true);
    expect(decoded).toEqual(toPaymentRequiredV2(body));
  });

  it('uses the v2 field names: amount, one resource object, per-tier resource in extra', () => {
    const decoded = PaymentRequiredV2Schema.parse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    expect(decoded.x402Version).toBe(2);
    expect(decoded.error).toBe('X-PAYMENT header is required');
    // The tiers differ only by ?tier=, so the v2 resource is the endpoint itself.
    expect(decoded.resource).toEqual({ url: `${AUDIENCE}/events/evt_01/rsvp`, mimeType: 'application/json' });
    expect(decoded.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'ledger:staging',
        amount: '1000000',
        asset: 'USDC',
        payTo: general.payTo,
        maxTimeoutSeconds: 300,
        extra: { eventId: 'evt_01', tierId: 'general', resource: general.resource },
      },
      {
        scheme: 'exact',
        network: 'ledger:staging',
        amount: '2500000',
        asset: 'USDC',
        payTo: vip.payTo,
        maxTimeoutSeconds: 300,
        extra: { eventId: 'evt_01', tierId: 'vip', resource: vip.resource },
      },
    ]);
    expect(decoded.accepts[0]).not.toHaveProperty('maxAmountRequired');
  });

  it('keeps the exact resource and description when there is one tier', () => {
    const decoded = decodePaymentRequiredHeader(encodePaymentRequiredHeader(paymentRequiredBody('x', [vip])));
    expect(decoded.resource).toEqual({
      url: vip.resource,
      description: vip.description,
      mimeType: 'application/json',
    });
  });

  it('takes an explicit v2 resource', () => {
    const resource = { url: `${AUDIENCE}/events/evt_01/rsvp`, description: 'RSVP to evt_01' };
    expect(decodePaymentRequiredHeader(encodePaymentRequiredHeader(body, resource)).resource).toEqual(
      resource,
    );
  });

  it('refuses a 402 with no way to pay, which no x402 parser accepts', () => {
    expect(() => encodePaymentRequiredHeader(paymentRequiredBody('sold out', []))).toThrow(RangeError);
  });

  it('refuses accepts for unrelated resources unless told the resource', () => {
    const other = tierRequirements('vip', { resource: `${AUDIENCE}/events/evt_02/rsvp?tier=vip` });
    const mixed = paymentRequiredBody('x', [general, other]);
    expect(() => encodePaymentRequiredHeader(mixed)).toThrow(RangeError);
    expect(() => encodePaymentRequiredHeader(mixed, { url: `${AUDIENCE}/events` })).not.toThrow();
  });

  it('refuses what the v2 schema would reject (a network that is not CAIP-2)', () => {
    const v1Network = tierRequirements('vip', { network: 'base-sepolia' });
    expect(() => encodePaymentRequiredHeader(paymentRequiredBody('x', [v1Network]))).toThrow(RangeError);
  });
});

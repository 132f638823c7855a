import { SignatureVerifier } from '@townhall/auth';
import { failureOf, host, NOW, payer, stranger, tierRequirements } from '../test/fixtures.js';
import type { PaymentFailure } from './errors.js';
import { checkLedgerPayment, paymentFingerprint } from './ledger-check.js';
import { decodePaymentHeader, encodePaymentHeader, signLedgerPayment } from './payload.js';
import type { LedgerAuthorization, LedgerPayload, PaymentPayload } from './payload.js';
import { toPaymentRequirementsV2 } from './requirements.js';
import type { PaymentRequirements } from './requirements.js';

const verifier = new SignatureVerifier();
const context = {
  caller: payer.agentId,
  now: NOW,
  verify: (agentId: string, message: string, signature: string) =>
    verifier.verifyMessage(agentId, message, signature),
};
const vip = tierRequirements('vip');
const general = tierRequirements('general');
const signed = signLedgerPayment(payer, vip, { now: NOW });
const ledger = signed.payload as LedgerPayload;

function check(
  payment: PaymentPayload,
  requirements: PaymentRequirements = vip,
  overrides?: Partial<typeof context>,
) {
  return () => checkLedgerPayment(payment, requirements, { ...context, ...overrides });
}

function withLedger(payload: unknown): PaymentPayload {
  return { ...signed, payload: payload as Record<string, unknown> };
}

function tampered(field: keyof LedgerAuthorization, value: string): PaymentPayload {
  return withLedger({ ...ledger, authorization: { ...ledger.authorization, [field]: value } });
}

/** Flips one base58 character of the signature into another base58 character. */
function flipped(signature: string, at: number): string {
  const c = signature[at];
  return `${signature.slice(0, at)}${c === '2' ? '3' : '2'}${signature.slice(at + 1)}`;
}

describe('checkLedgerPayment', () => {
  it('accepts what signLedgerPayment produced, verified by the real SignatureVerifier', () => {
    expect(checkLedgerPayment(signed, vip, context)).toEqual(ledger.authorization);
  });

  it('accepts it after a trip through the X-PAYMENT header', () => {
    expect(checkLedgerPayment(decodePaymentHeader(encodePaymentHeader(signed)), vip, context)).toEqual(
      ledger.authorization,
    );
  });

  it('accepts the same signed authorization in a v2 PAYMENT-SIGNATURE', () => {
    const v2: PaymentPayload = { ...signed, x402Version: 2, accepted: toPaymentRequirementsV2(vip) };
    expect(checkLedgerPayment(decodePaymentHeader(encodePaymentHeader(v2)), vip, context)).toEqual(
      ledger.authorization,
    );
  });

  it('accepts from validAfter up to one second before validBefore', () => {
    const { validAfter, validBefore } = ledger.authorization;
    expect(failureOf(check(signed, vip, { now: new Date(Number(validAfter) * 1000) }))).toBeUndefined();
    expect(failureOf(check(signed, vip, { now: new Date(Number(validBefore) * 1000 - 1) }))).toBeUndefined();
  });

  it.each<[string, () => unknown, PaymentFailure]>([
    ['another tier of the event', check(signed, general), 'resource_mismatch'],
    [
      'another event',
      check(
        signed,
        tierRequirements('vip', { resource: 'https://api.example.com/events/evt_02/rsvp?tier=vip' }),
      ),
      'resource_mismatch',
    ],
    [
      'another amount',
      check(signed, tierRequirements('vip', { maxAmountRequired: '2500001' })),
      'amount_mismatch',
    ],
    [
      'another payee',
      check(signed, tierRequirements('vip', { payTo: stranger.agentId })),
      'recipient_mismatch',
    ],
    ['another asset', check(signed, tierRequirements('vip', { asset: 'EURC' })), 'asset_mismatch'],
    [
      'another network',
      check(signed, tierRequirements('vip', { network: 'ledger:production' })),
      'invalid_network',
    ],
    ['a payer other than the caller', check(signed, vip, { caller: stranger.agentId }), 'payer_mismatch'],
    [
      'now == validBefore',
      check(signed, vip, { now: new Date((NOW.getTime() / 1000 + 300) * 1000) }),
      'expired',
    ],
    ['now after validBefore', check(signed, vip, { now: new Date(NOW.getTime() + 3_600_000) }), 'expired'],
    ['now before validAfter', check(signed, vip, { now: new Date(NOW.getTime() - 6_000) }), 'not_yet_valid'],
    [
      'a validity to the year 3000',
      check(
        signLedgerPayment(payer, vip, { now: NOW, validForSeconds: 32_503_680_000 - NOW.getTime() / 1000 }),
      ),
      'validity_too_long',
    ],
    [
      'a validity 31 s past the requirement timeout',
      check(signLedgerPayment(payer, vip, { now: NOW, validForSeconds: vip.maxTimeoutSeconds + 31 })),
      'validity_too_long',
    ],
    ['another scheme', check({ ...signed, scheme: 'upto' as 'exact' }), 'invalid_scheme'],
    [
      'a signature with one character flipped',
      check(withLedger({ ...ledger, signature: flipped(ledger.signature, 10) })),
      'invalid_signature',
    ],
    [
      'a signature that is not base58',
      check(withLedger({ ...ledger, signature: '0OIl' })),
      'invalid_signature',
    ],
    [
      'a signature by another key',
      check(
        withLedger({
          ...signLedgerPayment(stranger, vip, { now: NOW }).payload,
          authorization: ledger.authorization,
        }),
      ),
      'invalid_signature',
    ],
  ])('refuses %s', (_name, run, reason) => {
    expect(failureOf(run)).toBe(reason);
  });

  it.each<[keyof LedgerAuthorization, string]>([
    ['from', stranger.agentId],
    ['to', stranger.agentId],
    ['value', '1'],
    ['asset', 'EURC'],
    ['resource', general.resource],
    ['validAfter', '0'],
    ['validBefore', '99999999999'],
    ['nonce', 'ff'.repeat(32)],
  ])('refuses an authorization whose %s was changed after signing', (field, value) => {
    // The server's requirements follow the tampered value, so only the signature can notice.
    const requirements: PaymentRequirements = {
      ...vip,
      ...(field === 'to' ? { payTo: value } : {}),
      ...(field === 'value' ? { maxAmountRequired: value } : {}),
      ...(field === 'asset' ? { asset: value } : {}),
      ...(field === 'resource' ? { resource: value } : {}),
    };
    expect(
      failureOf(
        check(tampered(field, value), requirements, { caller: field === 'from' ? value : payer.agentId }),
      ),
    ).toBe('invalid_signature');
  });

  it.each<[string, unknown]>([
    ['no authorization', { signature: ledger.signature }],
    ['no signature', { authorization: ledger.authorization }],
    ['an unsigned extra member', { ...ledger, memo: 'hi' }],
    [
      'an unsigned extra authorization member',
      { ...ledger, authorization: { ...ledger.authorization, memo: 'hi' } },
    ],
    [
      'an upper-case nonce',
      { ...ledger, authorization: { ...ledger.authorization, nonce: 'AB'.repeat(32) } },
    ],
    ['a 16-byte nonce', { ...ledger, authorization: { ...ledger.authorization, nonce: 'ab'.repeat(16) } }],
    ['a decimal value', { ...ledger, authorization: { ...ledger.authorization, value: '2.5' } }],
    [
      'an ISO time',
      { ...ledger, authorization: { ...ledger.authorization, validBefore: '2025-01-01T12:05:00Z' } },
    ],
    ['a numeric time', { ...ledger, authorization: { ...ledger.authorization, validAfter: 1735732795 } }],
    [
      'a from that is not an agentId',
      { ...ledger, authorization: { ...ledger.authorization, from: 'alice' } },
    ],
    [
      'a resource with a line break',
      { ...ledger, authorization: { ...ledger.authorization, resource: 'a\nb' } },
    ],
  ])('refuses a payload with %s as malformed', (_name, payload) => {
    expect(failureOf(check(withLedger(payload)))).toBe('malformed');
  });

  it('refuses a payload that was signed for another host even if the caller pays the right one', () => {
    const forStranger = signLedgerPayment(payer, tierRequirements('vip', { payTo: stranger.agentId }), {
      now: NOW,
    });
    expect(failureOf(check(forStranger))).toBe('recipient_mismatch');
    expect(host.agentId).toBe(vip.payTo);
  });
});

describe('paymentFingerprint', () => {
  const fingerprint = paymentFingerprint(signed);

  it('is a sha256 hex that the same payload always gives', () => {
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(paymentFingerprint(decodePaymentHeader(encodePaymentHeader(signed)))).toBe(fingerprint);
    expect(paymentFingerprint(structuredClone(signed))).toBe(fingerprint);
  });

  it('does not depend on member order', () => {
    const a = ledger.authorization;
    const reordered = withLedger({
      authorization: {
        nonce: a.nonce,
        validBefore: a.validBefore,
        validAfter: a.validAfter,
        resource: a.resource,
        asset: a.asset,
        value: a.value,
        to: a.to,
        from: a.from,
      },
      signature: ledger.signature,
    });
    expect(paymentFingerprint(reordered)).toBe(fingerprint);
  });

  it('is the same for the same signed payment in a v2 envelope', () => {
    const v2: PaymentPayload = { ...signed, x402Version: 2, accepted: toPaymentRequirementsV2(vip) };
    expect(paymentFingerprint(v2)).toBe(fingerprint);
  });

  it('differs for another payment, even with the same nonce', () => {
    const nonce = ledger.authorization.nonce;
    expect(paymentFingerprint(signLedgerPayment(payer, general, { now: NOW, nonce }))).not.toBe(fingerprint);
    expect(
      paymentFingerprint(signLedgerPayment(payer, vip, { now: new Date(NOW.getTime() + 1000), nonce })),
    ).not.toBe(fingerprint);
  });
});

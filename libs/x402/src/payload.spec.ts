import { encodePaymentSignatureHeader } from '@x402/core/http';
import { PaymentPayloadSchema } from '@x402/core/schemas';
import { base64Json, failureOf, host, NOW, payer, tierRequirements } from '../test/fixtures.js';
import {
  decodePaymentHeader,
  decodePaymentResponse,
  encodePaymentHeader,
  encodePaymentResponse,
  ledgerAuthorizationMessage,
  signLedgerPayment,
} from './payload.js';
import type { LedgerPayload, PaymentPayload, PaymentResponse } from './payload.js';
import { toPaymentRequirementsV2 } from './requirements.js';

const vip = tierRequirements('vip');
const signed = signLedgerPayment(payer, vip, { now: NOW });
const ledger = signed.payload as LedgerPayload;

function v2Of(payment: PaymentPayload): PaymentPayload {
  return {
    ...payment,
    x402Version: 2,
    accepted: toPaymentRequirementsV2(vip),
    resource: { url: vip.resource },
  };
}

describe('signLedgerPayment', () => {
  it('authorizes exactly the tier price to the host for the resource, valid from now - 5 s', () => {
    expect(signed).toMatchObject({ x402Version: 1, scheme: 'exact', network: 'ledger:staging' });
    expect(ledger.authorization).toEqual({
      from: payer.agentId,
      to: host.agentId,
      value: '2500000',
      asset: 'USDC',
      resource: vip.resource,
      validAfter: String(NOW.getTime() / 1000 - 5),
      validBefore: String(NOW.getTime() / 1000 + 300),
      nonce: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown as string,
    });
  });

  it('draws a fresh nonce each time unless given one', () => {
    const again = signLedgerPayment(payer, vip, { now: NOW }).payload as LedgerPayload;
    expect(again.authorization.nonce).not.toBe(ledger.authorization.nonce);
    const nonce = 'ab'.repeat(32);
    const fixed = signLedgerPayment(payer, vip, { now: NOW, nonce, validForSeconds: 60 })
      .payload as LedgerPayload;
    expect(fixed.authorization.nonce).toBe(nonce);
    expect(fixed.authorization.validBefore).toBe(String(NOW.getTime() / 1000 + 60));
  });

  it('refuses a malformed nonce, a non-positive validity and a network that is not a ledger', () => {
    expect(() => signLedgerPayment(payer, vip, { nonce: 'AB'.repeat(32) })).toThrow(RangeError);
    expect(() => signLedgerPayment(payer, vip, { validForSeconds: 0 })).toThrow(RangeError);
    const solana = tierRequirements('vip', { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' });
    expect(failureOf(() => signLedgerPayment(payer, solana))).toBe('invalid_network');
  });
});

describe('ledgerAuthorizationMessage', () => {
  it('is the ten lines of docs/protocol/payments.md joined by LF', () => {
    const a = ledger.authorization;
    expect(ledgerAuthorizationMessage('ledger:staging', a).split('\n')).toEqual([
      'x402-ledger-v1',
      'ledger:staging',
      a.from,
      a.to,
      a.value,
      a.asset,
      a.resource,
      a.validAfter,
      a.validBefore,
      a.nonce,
    ]);
  });

  it('refuses a field with a line break, which could shift the others', () => {
    const shifted = { ...ledger.authorization, asset: 'USDC\n2500000' };
    expect(failureOf(() => ledgerAuthorizationMessage('ledger:staging', shifted))).toBe('malformed');
  });
});

describe('payment header', () => {
  it('round-trips a v1 payload through X-PAYMENT', () => {
    const header = encodePaymentHeader(signed);
    expect(Buffer.from(header, 'base64').toString('base64')).toBe(header);
    expect(decodePaymentHeader(header)).toEqual(signed);
    expect(PaymentPayloadSchema.safeParse(JSON.parse(Buffer.from(header, 'base64').toString())).success).toBe(
      true,
    );
  });

  it('round-trips a v2 payload through PAYMENT-SIGNATURE in the x402 v2 wire form', () => {
    const v2 = v2Of(signed);
    const header = encodePaymentHeader(v2);
    const wire = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(wire).sort()).toEqual(['accepted', 'payload', 'resource', 'x402Version']);
    expect(decodePaymentHeader(header)).toEqual(v2);
  });

  it("decodes what @x402/core's own encoder writes, normalising v2 to scheme and network", () => {
    const header = encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: { ...toPaymentRequirementsV2(vip), network: 'ledger:staging' },
      payload: { signature: ledger.signature, authorization: { ...ledger.authorization } },
    });
    const decoded = decodePaymentHeader(header);
    expect(decoded).toMatchObject({ x402Version: 2, scheme: 'exact', network: 'ledger:staging' });
    expect(decoded.payload).toEqual(ledger);
  });

  it('refuses a v2 payload whose accepted disagrees with its network', () => {
    const v2 = { ...v2Of(signed), network: 'ledger:production' };
    expect(failureOf(() => encodePaymentHeader(v2))).toBe('malformed');
    expect(failureOf(() => encodePaymentHeader({ ...signed, x402Version: 2 }))).toBe('malformed');
  });

  const valid = JSON.parse(Buffer.from(encodePaymentHeader(signed), 'base64').toString('utf8')) as Record<
    string,
    unknown
  >;
  it.each<[string, string]>([
    ['empty', ''],
    ['not base64', 'not base64!'],
    ['base64url alphabet', base64Json(valid).replace(/\+/g, '-').replace(/\//g, '_') + '-_'],
    ['unpadded', base64Json({ x402Version: 1 }).replace(/=+$/, '')],
    ['non-canonical trailing bits', 'eyJhIjoxfR=='.replace('fR==', 'fS==')],
    ['with whitespace', ` ${base64Json(valid)}`],
    ['base64 of text', Buffer.from('hello, world').toString('base64')],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64')],
    ['a JSON array', base64Json([valid])],
    ['a JSON string', base64Json('payment')],
    ['null', base64Json(null)],
    ['x402Version 3', base64Json({ ...valid, x402Version: 3 })],
    ['x402Version as a string', base64Json({ ...valid, x402Version: '1' })],
    ['no network', base64Json({ ...valid, network: undefined })],
    ['an empty network', base64Json({ ...valid, network: '' })],
    ['payload not an object', base64Json({ ...valid, payload: 'signed' })],
    ['v2 without accepted', base64Json({ ...valid, x402Version: 2 })],
    ['too long', base64Json({ ...valid, padding: 'x'.repeat(20_000) })],
  ])('refuses %s as malformed', (_name, header) => {
    expect(failureOf(() => decodePaymentHeader(header))).toBe('malformed');
  });

  it('refuses another scheme as invalid_scheme, in v1 and in v2', () => {
    expect(failureOf(() => decodePaymentHeader(base64Json({ ...valid, scheme: 'upto' })))).toBe(
      'invalid_scheme',
    );
    const v2 = { x402Version: 2, accepted: { ...toPaymentRequirementsV2(vip), scheme: 'upto' }, payload: {} };
    expect(failureOf(() => decodePaymentHeader(base64Json(v2)))).toBe('invalid_scheme');
  });
});

describe('payment response header', () => {
  it.each<[string, PaymentResponse]>([
    [
      'a settlement',
      { success: true, transaction: 'le_01', network: 'ledger:staging', payer: payer.agentId },
    ],
    [
      'a failure',
      {
        success: false,
        transaction: '',
        network: 'ledger:staging',
        payer: payer.agentId,
        errorReason: 'expired',
      },
    ],
  ])('round-trips %s', (_name, response) => {
    const header = encodePaymentResponse(response);
    expect(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).toEqual(response);
    expect(decodePaymentResponse(header)).toEqual(response);
  });

  it('refuses what is not a payment response', () => {
    expect(failureOf(() => decodePaymentResponse(base64Json({ success: 'yes' })))).toBe('malformed');
    expect(failureOf(() => decodePaymentResponse('%%%'))).toBe('malformed');
  });
});

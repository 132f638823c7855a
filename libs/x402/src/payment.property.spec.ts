import { SignatureVerifier, signMessage } from '@townhall/auth';
import fc from 'fast-check';
import { host, payer, stranger, tierRequirements } from '../test/fixtures.js';
import { PaymentError, type PaymentFailure } from './errors.js';
import { checkLedgerPayment } from './ledger-check.js';
import {
  decodePaymentHeader,
  encodePaymentHeader,
  ledgerAuthorizationMessage,
  signLedgerPayment,
  type LedgerAuthorization,
  type LedgerPayload,
  type PaymentPayload,
} from './payload.js';
import { toPaymentRequirementsV2, type PaymentRequirements } from './requirements.js';

// Properties of the ledger payment checks (docs/tickets-and-payments.md) over payments fast-check makes
// up: whatever a client puts in X-PAYMENT / PAYMENT-SIGNATURE is either a payment or a
// PaymentError (never another exception, which the service would answer with a 500); a payment
// signed for the requirements passes; and no changed field of it passes.

const verifier = new SignatureVerifier();
const NOW = new Date('2026-06-01T12:00:00.000Z');
const context = {
  caller: payer.agentId,
  now: NOW,
  verify: (agentId: string, message: string, signature: string) =>
    verifier.verifyMessage(agentId, message, signature),
};

/** The PaymentError reason, 'ok', or the property fails on any other throw. */
function outcome(run: () => unknown): PaymentFailure | 'ok' {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (error instanceof PaymentError) return error.reason;
    throw error;
  }
}

const base64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64');

const requirements: fc.Arbitrary<PaymentRequirements> = fc
  .record({
    tier: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,31}$/),
    price: fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String),
    asset: fc.constantFrom('USDC', 'EURC', 'a:b.c_d-e'),
    timeout: fc.integer({ min: 1, max: 3_600 }),
  })
  .map(({ tier, price, asset, timeout }) =>
    tierRequirements(tier, { maxAmountRequired: price, asset, maxTimeoutSeconds: timeout }),
  );

/** A payment signed now by the payer for `requirements`, valid for part of the timeout. */
function signedFor(req: PaymentRequirements, validFor: number, version: 1 | 2): PaymentPayload {
  const signed = signLedgerPayment(payer, req, {
    now: NOW,
    validForSeconds: Math.min(validFor, req.maxTimeoutSeconds),
  });
  return version === 1 ? signed : { ...signed, x402Version: 2, accepted: toPaymentRequirementsV2(req) };
}

/** What a hostile client sends: anything, base64 of anything, and payloads that are almost right. */
const hostileHeader = fc.oneof(
  fc.string(),
  fc.base64String({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 100 }).map(base64),
  fc.jsonValue({ maxDepth: 4 }).map((value) => base64(JSON.stringify(value))),
  fc
    .record(
      {
        x402Version: fc.constantFrom(1, 2, 3, '1', null, 1.5),
        scheme: fc.constantFrom('exact', 'upto', '', 1),
        network: fc.constantFrom('ledger:staging', 'ledger:production', '', 'solana'),
        payload: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.record({
            signature: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
            authorization: fc.dictionary(
              fc.constantFrom(
                'from',
                'to',
                'value',
                'asset',
                'resource',
                'validAfter',
                'validBefore',
                'nonce',
                'extra',
              ),
              fc.oneof(
                fc.string(),
                fc.integer(),
                fc.constant(null),
                fc.constantFrom('32503680000', '9'.repeat(16), '-1'),
              ),
            ),
          }),
        ),
        accepted: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((value) => base64(JSON.stringify(value))),
);

describe('ledger payments (property)', () => {
  const vip = tierRequirements('vip');

  it('a header is a payment or a PaymentError, and so is checking it', () => {
    fc.assert(
      fc.property(hostileHeader, (header) => {
        let payment: PaymentPayload;
        try {
          payment = decodePaymentHeader(header);
        } catch (error) {
          expect(error).toBeInstanceOf(PaymentError);
          return;
        }
        expect(outcome(() => checkLedgerPayment(payment, vip, context))).not.toBe('ok');
      }),
      { numRuns: 3_000 },
    );
  });

  it('a payment signed for the requirements passes, in either header version, after a trip over the wire', () => {
    fc.assert(
      fc.property(
        requirements,
        fc.integer({ min: 1, max: 3_600 }),
        fc.constantFrom(1, 2) as fc.Arbitrary<1 | 2>,
        (req, validFor, version) => {
          const payment = decodePaymentHeader(encodePaymentHeader(signedFor(req, validFor, version)));
          expect(checkLedgerPayment(payment, req, context)).toEqual(
            expect.objectContaining({
              from: payer.agentId,
              to: req.payTo,
              value: req.maxAmountRequired,
              resource: req.resource,
            }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  const FIELDS: ReadonlyArray<keyof LedgerAuthorization> = [
    'from',
    'to',
    'value',
    'asset',
    'resource',
    'validAfter',
    'validBefore',
    'nonce',
  ];

  it('any changed character of a signed payment is refused', () => {
    const target = fc.constantFrom<'signature' | 'network' | keyof LedgerAuthorization>(
      'signature',
      'network',
      ...FIELDS,
    );
    fc.assert(
      fc.property(
        requirements,
        target,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme-ascii' }),
        (req, field, at, by) => {
          const payment = signedFor(req, 60, 1);
          const ledger = payment.payload as LedgerPayload;
          const change = (text: string) => {
            const i = at % text.length;
            return `${text.slice(0, i)}${text[i] === by ? (by === '1' ? '2' : '1') : by}${text.slice(i + 1)}`;
          };
          let tampered: PaymentPayload;
          if (field === 'network') tampered = { ...payment, network: change(payment.network) };
          else if (field === 'signature')
            tampered = { ...payment, payload: { ...ledger, signature: change(ledger.signature) } };
          else
            tampered = {
              ...payment,
              payload: {
                ...ledger,
                authorization: { ...ledger.authorization, [field]: change(ledger.authorization[field]) },
              },
            };
          expect(outcome(() => checkLedgerPayment(tampered, req, context))).not.toBe('ok');
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('a payment signed by its payer for other terms is refused for what differs', () => {
    const terms = fc.oneof(
      fc.record({
        field: fc.constant('to' as const),
        value: fc.constantFrom(stranger.agentId, payer.agentId),
      }),
      fc.record({
        field: fc.constant('value' as const),
        value: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String), fc.constant('0')),
      }),
      fc.record({ field: fc.constant('asset' as const), value: fc.constantFrom('ETH', 'usdc', 'USDC ') }),
      fc.record({ field: fc.constant('resource' as const), value: fc.webUrl() }),
      fc.record({
        field: fc.constant('validBefore' as const),
        value: fc.constantFrom('0', '1', '1780315200', '32503680000', '999999999999999'),
      }),
      fc.record({
        field: fc.constant('validAfter' as const),
        value: fc.constantFrom('1780315300', '32503680000', '999999999999999'),
      }),
    );
    fc.assert(
      fc.property(requirements, terms, (req, { field, value }) => {
        const ledger = signedFor(req, 60, 1).payload as LedgerPayload;
        fc.pre(ledger.authorization[field] !== value);
        const authorization = { ...ledger.authorization, [field]: value };
        let signature: string;
        try {
          signature = signMessage(payer, ledgerAuthorizationMessage(req.network, authorization));
        } catch (error) {
          expect(error).toBeInstanceOf(PaymentError);
          return;
        }
        const payment: PaymentPayload = {
          x402Version: 1,
          scheme: 'exact',
          network: req.network,
          payload: { signature, authorization },
        };
        expect({
          field,
          value,
          outcome: outcome(() => checkLedgerPayment(payment, req, context)),
        }).not.toMatchObject({ outcome: 'ok' });
      }),
      { numRuns: 400 },
    );
  });

  it('a payment from another key than the caller is refused, however it is signed', () => {
    fc.assert(
      fc.property(requirements, fc.constantFrom(host, stranger), (req, other) => {
        const payment = signLedgerPayment(other, req, { now: NOW });
        expect(outcome(() => checkLedgerPayment(payment, req, context))).toBe('payer_mismatch');
      }),
      { numRuns: 100 },
    );
  });
});

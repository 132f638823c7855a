import { signMessage } from '@townhall/auth/portable';
import type { AgentKey } from '@townhall/auth/portable';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import {
  PaymentPayloadV1Schema,
  PaymentPayloadV2Schema,
  PaymentRequirementsV2Schema,
} from '@x402/core/schemas';
import type { PaymentPayloadV1, PaymentPayloadV2 } from '@x402/core/schemas';
import { z } from 'zod';
import { decodeBase64Json, encodeBase64Json } from './base64-json.js';
import { PaymentError } from './errors.js';
import type { PaymentRequirements } from './requirements.js';
import { describeIssue } from './schema-issue.js';

/** What the payer signs for the ledger facilitator. Times are unix seconds as decimal strings. */
export interface LedgerAuthorization {
  from: string;
  to: string;
  value: string;
  asset: string;
  resource: string;
  validAfter: string;
  validBefore: string;
  /** 32 random bytes, 64 lower-case hex characters. */
  nonce: string;
}

export interface LedgerPayload {
  /** base58 Ed25519 signature by `from` over `ledgerAuthorizationMessage`. */
  signature: string;
  authorization: LedgerAuthorization;
}

/**
 * One payment, whatever header brought it. v2 payloads are normalised to the v1 shape (`scheme` and
 * `network` come from `accepted`) so that checks read one shape; the v2-only members are kept as sent so
 * the payload can be re-encoded or forwarded to a facilitator unchanged.
 */
export interface PaymentPayload {
  x402Version: 1 | 2;
  scheme: 'exact';
  network: string;
  payload: LedgerPayload | Record<string, unknown>;
  /** v2 only: the requirements the client says it accepted. Not signed by the ledger scheme. */
  accepted?: unknown;
  /** v2 only: the resource the client says it paid for. */
  resource?: unknown;
  /** v2 only. */
  extensions?: Record<string, unknown>;
}

export interface PaymentResponse {
  success: boolean;
  /** The ledger entry id (ledger) or the chain transaction (http). */
  transaction: string;
  network: string;
  payer: string;
  errorReason?: string;
  /** x402 v2 extensions of the answer, e.g. the `offer-receipt` receipt. */
  extensions?: Record<string, unknown>;
}

export const LEDGER_SIGNING_VERSION = 'x402-ledger-v1';
/** validAfter is set this far in the past so that a server clock slightly behind the payer's accepts it. */
export const LEDGER_CLOCK_SKEW_SECONDS = 5;
const NONCE = /^[0-9a-f]{64}$/;
const LINE_BREAK = /[\r\n]/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalise(value: unknown): PaymentPayload {
  if (!isRecord(value)) throw new PaymentError('malformed', 'payment payload is not a JSON object');
  if (value.x402Version === 1) {
    const parsed = PaymentPayloadV1Schema.safeParse(value);
    if (!parsed.success) throw new PaymentError('malformed', describeIssue(parsed.error, 'payment'));
    const { scheme, network, payload } = parsed.data;
    if (scheme !== 'exact') throw new PaymentError('invalid_scheme', `scheme must be exact, got ${scheme}`);
    return { x402Version: 1, scheme, network, payload };
  }
  if (value.x402Version === 2) {
    const parsed = PaymentPayloadV2Schema.safeParse(value);
    if (!parsed.success) throw new PaymentError('malformed', describeIssue(parsed.error, 'payment'));
    const { accepted, payload, resource, extensions } = parsed.data;
    if (accepted.scheme !== 'exact') {
      throw new PaymentError('invalid_scheme', `scheme must be exact, got ${accepted.scheme}`);
    }
    return {
      x402Version: 2,
      scheme: 'exact',
      network: accepted.network,
      payload,
      accepted,
      ...(resource === undefined ? {} : { resource }),
      ...(extensions === undefined || extensions === null ? {} : { extensions }),
    };
  }
  throw new PaymentError('malformed', 'x402Version must be 1 or 2');
}

/** Parses an `X-PAYMENT` (v1) or `PAYMENT-SIGNATURE` (v2) header value: standard base64 of JSON. */
export function decodePaymentHeader(value: string): PaymentPayload {
  return normalise(decodeBase64Json(value, 'payment header'));
}

/**
 * The payload as x402 puts it on the wire: v1 as is, v2 as `{ x402Version, resource?, accepted, payload,
 * extensions? }`. Validated with @x402/core's schemas, so what we send any x402 party is what it parses.
 */
export function toWirePaymentPayload(payment: PaymentPayload): PaymentPayloadV1 | PaymentPayloadV2 {
  if (payment.x402Version === 1) {
    const wire = {
      x402Version: 1,
      scheme: payment.scheme,
      network: payment.network,
      payload: payment.payload,
    };
    const checked = PaymentPayloadV1Schema.safeParse(wire);
    if (!checked.success) throw new PaymentError('malformed', describeIssue(checked.error, 'payment'));
    return wire as PaymentPayloadV1;
  }
  const accepted = PaymentRequirementsV2Schema.safeParse(payment.accepted);
  if (!accepted.success)
    throw new PaymentError('malformed', describeIssue(accepted.error, 'payment.accepted'));
  // v2 carries scheme and network only inside `accepted`: a disagreement would be silently lost on the wire.
  if (accepted.data.scheme !== payment.scheme || accepted.data.network !== payment.network) {
    throw new PaymentError('malformed', 'payment.accepted disagrees with the payment scheme or network');
  }
  const wire = {
    x402Version: 2,
    ...(payment.resource === undefined ? {} : { resource: payment.resource }),
    accepted: payment.accepted,
    payload: payment.payload,
    ...(payment.extensions === undefined ? {} : { extensions: payment.extensions }),
  };
  const checked = PaymentPayloadV2Schema.safeParse(wire);
  if (!checked.success) throw new PaymentError('malformed', describeIssue(checked.error, 'payment'));
  return wire as PaymentPayloadV2;
}

export function encodePaymentHeader(payload: PaymentPayload): string {
  return encodeBase64Json(toWirePaymentPayload(payload));
}

/** docs/protocol/payments.md "The signed message": these ten lines joined by LF, no trailing LF. */
export function ledgerAuthorizationMessage(network: string, a: LedgerAuthorization): string {
  const lines = [
    LEDGER_SIGNING_VERSION,
    network,
    a.from,
    a.to,
    a.value,
    a.asset,
    a.resource,
    a.validAfter,
    a.validBefore,
    a.nonce,
  ];
  // A field with a line break could shift the others and make two authorizations sign the same message.
  if (lines.some((line) => LINE_BREAK.test(line))) {
    throw new PaymentError('malformed', 'a ledger authorization field contains CR or LF');
  }
  return lines.join('\n');
}

export function newLedgerNonce(): string {
  return bytesToHex(randomBytes(32));
}

export function signLedgerPayment(
  key: AgentKey,
  requirements: PaymentRequirements,
  options?: { now?: Date; validForSeconds?: number; nonce?: string },
): PaymentPayload {
  if (!requirements.network.startsWith('ledger:')) {
    throw new PaymentError(
      'invalid_network',
      `only ledger networks are signed here, got ${requirements.network}`,
    );
  }
  const validFor = options?.validForSeconds ?? requirements.maxTimeoutSeconds;
  if (!Number.isSafeInteger(validFor) || validFor <= 0) {
    throw new RangeError('validForSeconds must be a positive integer');
  }
  const nonce = options?.nonce ?? newLedgerNonce();
  if (!NONCE.test(nonce)) throw new RangeError('a ledger nonce is 64 lower-case hex characters (32 bytes)');
  const nowSeconds = Math.floor((options?.now ?? new Date()).getTime() / 1000);
  const authorization: LedgerAuthorization = {
    from: key.agentId,
    to: requirements.payTo,
    value: requirements.maxAmountRequired,
    asset: requirements.asset,
    resource: requirements.resource,
    validAfter: String(nowSeconds - LEDGER_CLOCK_SKEW_SECONDS),
    validBefore: String(nowSeconds + validFor),
    nonce,
  };
  const signature = signMessage(key, ledgerAuthorizationMessage(requirements.network, authorization));
  return {
    x402Version: 1,
    scheme: 'exact',
    network: requirements.network,
    payload: { signature, authorization },
  };
}

const PaymentResponseSchema = z.object({
  success: z.boolean(),
  transaction: z.string(),
  network: z.string().min(1),
  payer: z.string(),
  errorReason: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** The `X-PAYMENT-RESPONSE` / `PAYMENT-RESPONSE` header value. */
export function encodePaymentResponse(response: PaymentResponse): string {
  const { success, transaction, network, payer, errorReason, extensions } = response;
  return encodeBase64Json({
    success,
    transaction,
    network,
    payer,
    ...(errorReason === undefined ? {} : { errorReason }),
    ...(extensions === undefined ? {} : { extensions }),
  });
}

export function decodePaymentResponse(value: string): PaymentResponse {
  const parsed = PaymentResponseSchema.safeParse(decodeBase64Json(value, 'payment response header'));
  if (!parsed.success) throw new PaymentError('malformed', describeIssue(parsed.error, 'payment response'));
  const { errorReason, extensions, ...rest } = parsed.data;
  return {
    ...rest,
    ...(errorReason === undefined ? {} : { errorReason }),
    ...(extensions === undefined ? {} : { extensions }),
  };
}

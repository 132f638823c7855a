import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { PaymentError } from './errors.js';
import { ledgerAuthorizationMessage } from './payload.js';
import type { LedgerAuthorization, PaymentPayload } from './payload.js';
import type { PaymentRequirements } from './requirements.js';
import { describeIssue } from './schema-issue.js';

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
// At most 15 digits: far beyond any real date, and always a safe integer once converted.
const UNIX_SECONDS = /^(0|[1-9][0-9]{0,14})$/;
const AMOUNT = /^(0|[1-9][0-9]{0,77})$/;
const NO_LINE_BREAK = /^[^\r\n]+$/;
/** The clock difference allowed between payer and service, as the request signature's window allows. */
const VALIDITY_SKEW_SECONDS = 30;

// Strict objects: an unsigned extra member would ride along with a valid signature and mean nothing, or
// worse, mean something to a later reader. Formats are checked before any comparison or signature check.
const LedgerPayloadSchema = z.strictObject({
  signature: z.string().min(1).max(128),
  authorization: z.strictObject({
    from: z.string().min(32).max(44).regex(BASE58, 'must be an agentId'),
    to: z.string().min(32).max(44).regex(BASE58, 'must be an agentId'),
    value: z.string().regex(AMOUNT, 'must be an integer string of atomic units'),
    asset: z.string().max(128).regex(NO_LINE_BREAK, 'must be one non-empty line'),
    resource: z.string().max(2048).regex(NO_LINE_BREAK, 'must be one non-empty line'),
    validAfter: z.string().regex(UNIX_SECONDS, 'must be unix seconds as a decimal string'),
    validBefore: z.string().regex(UNIX_SECONDS, 'must be unix seconds as a decimal string'),
    nonce: z.string().regex(/^[0-9a-f]{64}$/, 'must be 32 bytes as 64 lower-case hex characters'),
  }),
});

export interface LedgerCheckContext {
  /** The agentId that signed the request (docs/protocol/signing.md): only it may pay from its balance. */
  caller: string;
  now: Date;
  verify: (agentId: string, message: string, signature: string) => boolean;
}

/**
 * Every check of docs/protocol/payments.md "What the server checks, in order" that needs no database, in
 * a fixed order so that a given payload always fails for the same reason. What is left for the settlement
 * transaction: the nonce claim and the balance.
 * The v2 `accepted` echo is not compared: it is unsigned, and the signed authorization decides.
 */
export function checkLedgerPayment(
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  context: LedgerCheckContext,
): LedgerAuthorization {
  if (payment.scheme !== 'exact' || requirements.scheme !== 'exact') {
    throw new PaymentError('invalid_scheme', `scheme must be exact, got ${String(payment.scheme)}`);
  }
  if (payment.network !== requirements.network) {
    throw new PaymentError(
      'invalid_network',
      `network must be ${requirements.network}, got ${payment.network}`,
    );
  }
  const parsed = LedgerPayloadSchema.safeParse(payment.payload);
  if (!parsed.success) throw new PaymentError('malformed', describeIssue(parsed.error, 'payload'));
  const { signature, authorization: a } = parsed.data;

  // Signature before the comparisons: until it verifies, nothing in the authorization is the payer's word.
  if (!context.verify(a.from, ledgerAuthorizationMessage(requirements.network, a), signature)) {
    throw new PaymentError('invalid_signature', 'the signature does not verify for authorization.from');
  }
  if (a.from !== context.caller) {
    throw new PaymentError('payer_mismatch', 'authorization.from must be the agent that signed the request');
  }
  if (a.resource !== requirements.resource) {
    throw new PaymentError('resource_mismatch', `authorization.resource must be ${requirements.resource}`);
  }
  if (a.to !== requirements.payTo) {
    throw new PaymentError('recipient_mismatch', `authorization.to must be ${requirements.payTo}`);
  }
  if (a.asset !== requirements.asset) {
    throw new PaymentError('asset_mismatch', `authorization.asset must be ${requirements.asset}`);
  }
  if (a.value !== requirements.maxAmountRequired) {
    throw new PaymentError(
      'amount_mismatch',
      `authorization.value must be ${requirements.maxAmountRequired}`,
    );
  }
  const nowSeconds = Math.floor(context.now.getTime() / 1000);
  if (nowSeconds < Number(a.validAfter)) {
    throw new PaymentError('not_yet_valid', `the authorization is valid from ${a.validAfter}`);
  }
  if (nowSeconds >= Number(a.validBefore)) {
    throw new PaymentError('expired', `the authorization expired at ${a.validBefore}`);
  }
  // A payment is signed for this purchase, now: its validity may not outlast the requirement's timeout
  // (plus the clock skew the auth window allows), so a leaked authorization is not good for years.
  const latest = nowSeconds + requirements.maxTimeoutSeconds + VALIDITY_SKEW_SECONDS;
  if (Number(a.validBefore) > latest) {
    throw new PaymentError(
      'validity_too_long',
      `authorization.validBefore must be at most ${requirements.maxTimeoutSeconds} s from now`,
    );
  }
  return a;
}

/** RFC 8785 style: keys sorted by UTF-16 code units, no whitespace, ECMAScript number and string forms. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

/**
 * sha256 hex of the canonical JSON of `{ scheme, network, payload }`: "the same payload again" detection.
 * The envelope (x402Version and the v2 `accepted`, `resource`, `extensions`) is left out: it is not signed,
 * so resending one signed payment in the other header version is still the same payment, not a new one
 * that reuses its nonce (409).
 */
export function paymentFingerprint(payment: PaymentPayload): string {
  const { scheme, network, payload } = payment;
  return bytesToHex(sha256(utf8ToBytes(canonicalJson({ scheme, network, payload }))));
}

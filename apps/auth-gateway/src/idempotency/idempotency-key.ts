import { createHash } from 'node:crypto';
import { DomainError } from '@townhall/contracts';

/** The methods a key may make safe to retry; GET and HEAD are safe already, and ignore it. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** 1 to 255 printable ASCII characters (SP to `~`): docs/protocol/idempotency.md. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` of a request, as Node received it (`headersDistinct`: one entry per
 * header line), or undefined when there is none. The value is the key as sent, byte for byte: a
 * structured-field string (`"8e03..."`, the draft's form) and the same characters unquoted are
 * two keys; a client sends the same form on each retry. Two header lines, an empty value or
 * anything outside printable ASCII is 400 `idempotency.key_invalid`.
 */
export function idempotencyKeyOf(lines: readonly string[] | undefined): string | undefined {
  if (lines === undefined) return undefined;
  if (lines.length !== 1)
    throw new DomainError('idempotency.key_invalid', 'Send one Idempotency-Key header, not several');
  const key = lines[0]!;
  if (!KEY_PATTERN.test(key))
    throw new DomainError(
      'idempotency.key_invalid',
      `The Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (space to ~)`,
    );
  return key;
}

/**
 * What makes two requests "the same request" for one key: the method, the raw path and raw
 * query exactly as sent (what the signature covers, so `?a=1&b=2` and `?b=2&a=1` differ), and the
 * SHA-256 of the raw body bytes. Headers are not part of it: a retry of a paid RSVP may carry a
 * newly signed payment and is still the same request (docs/protocol/idempotency.md "The x402 RSVP").
 */
export function requestFingerprint(method: string, rawUrl: string, rawBody: Buffer): string {
  const question = rawUrl.indexOf('?');
  const path = question === -1 ? rawUrl : rawUrl.slice(0, question);
  const query = question === -1 ? '' : rawUrl.slice(question + 1);
  const bodyDigest = createHash('sha256').update(rawBody).digest('hex');
  return createHash('sha256').update(`${method}\n${path}\n${query}\n${bodyDigest}`).digest('hex');
}

/**
 * Whether an answer with this status is kept and replayed for its key: a 2xx only, the answer to
 * an operation that happened (a write made, a ticket issued or pending, a payment settled), which
 * a retry must get again instead of doing it twice. Nothing else is kept, and a retry with the key
 * is evaluated again:
 * - 4xx: the operation did not happen (not found, a conflict, invalid, forbidden, 402 unpaid), so
 *   running it again cannot do it twice, and it may now succeed (a seat freed up). Keeping them
 *   would let anyone fill the store with cheap refusals (404s of random ids) for 24 hours;
 * - 5xx: the service was away or did not answer (503, 504), nothing to repeat faithfully; a write
 *   that did happen meets its service's own rules on the retry (one ticket per agent and event).
 */
export function isKeptStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

import { hashes, verify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import type { CloudEvent, WebhookKey } from '@townhall/contracts';

// noble's synchronous verify needs a SHA-512 (the signer of @townhall/auth sets the same one).
hashes.sha512 ??= sha512;

/** How far a delivery's `webhook-timestamp` may be from now (Standard Webhooks suggests 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** A delivery that does not verify: missing headers, an old timestamp, no matching signature. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Headers as Node (`req.headers`), fetch (`Headers`) or a plain object carry them. */
export type WebhookRequestHeaders =
  { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** The current time, in ms (for tests). */
  now?: number;
}

/**
 * Verifies a Townhall webhook delivery (docs/protocol/webhooks.md, Standard Webhooks `v1a`) and
 * returns its CloudEvent: `webhook-signature` must hold a `v1a,<base64>` Ed25519 signature, by
 * `publicKey` (`whpk_...` from `GET /.well-known/townhall/webhook-key`, or that document), of
 * `<webhook-id>.<webhook-timestamp>.<body>`, and the timestamp must be recent. Pass the body
 * exactly as received (bytes or the undecoded string), never a re-serialized JSON. Throws
 * WebhookVerificationError otherwise. Then dedupe on `webhook-id`: a delivery may come twice.
 */
export function verifyWebhook<T = unknown>(
  headers: WebhookRequestHeaders,
  body: string | Uint8Array,
  publicKey: string | Pick<WebhookKey, 'publicKey'>,
  options: VerifyWebhookOptions = {},
): CloudEvent<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook headers');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError('The webhook-timestamp is too old or too new');

  const key = decodeBase64(
    (typeof publicKey === 'string' ? publicKey : publicKey.publicKey).replace(/^whpk_/, ''),
  );
  if (key.length !== 32) throw new WebhookVerificationError('The public key is not 32 bytes of Ed25519');
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);

  const verified = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1a' || !signature) return false;
    try {
      return verify(decodeBase64(signature), signed, key, { zip215: false });
    } catch {
      return false; // a malformed signature is just not a match
    }
  });
  if (!verified) throw new WebhookVerificationError('No matching v1a signature');
  return JSON.parse(new TextDecoder().decode(bytes)) as CloudEvent<T>;
}

function header(headers: WebhookRequestHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function decodeBase64(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    throw new WebhookVerificationError('Not base64');
  }
}

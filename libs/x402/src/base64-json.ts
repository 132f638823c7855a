import { PaymentError } from './errors.js';

// Generous for any x402 payload we know of, small enough that a hostile header cannot make us parse megabytes.
const MAX_ENCODED_LENGTH = 16_384;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// btoa/atob and TextEncoder/TextDecoder exist in browsers and in Node >= 16, so no Buffer (keeps this portable).
function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function encodeBase64Json(value: unknown): string {
  return bytesToBase64(new TextEncoder().encode(JSON.stringify(value)));
}

/**
 * Standard, padded, canonical base64 of UTF-8 JSON, or PaymentError('malformed'). Canonical (the unused
 * bits of the last group are zero) so that one payment has exactly one header spelling.
 */
export function decodeBase64Json(value: string, what: string): unknown {
  if (value.length === 0 || value.length > MAX_ENCODED_LENGTH || !STANDARD_BASE64.test(value)) {
    throw new PaymentError(
      'malformed',
      `${what} is not standard base64 (at most ${MAX_ENCODED_LENGTH} chars)`,
    );
  }
  const binary = atob(value);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  if (bytesToBase64(bytes) !== value) {
    throw new PaymentError('malformed', `${what} is not canonical base64`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new PaymentError('malformed', `${what} is not UTF-8`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new PaymentError('malformed', `${what} is not JSON`);
  }
}

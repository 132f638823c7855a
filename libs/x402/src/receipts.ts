// Reading and verifying the service's x402 `offer-receipt` receipts (docs/protocol/payments.md
// "The receipt"), for clients: the CLI's `townhall ticket verify`, an agent keeping proof of
// purchase. With @x402/extensions' own `verifyReceiptSignatureJWS`, against the JWK set of
// `GET /.well-known/jwks.json`. Portable (jose and WebCrypto), and a separate entry
// (`@townhall/x402/receipts`) because the package brings viem along.
import { extractJWSHeader, verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt';
import type { JWSSignedReceipt, ReceiptPayload } from '@x402/extensions/offer-receipt';
import { decodeBase64Json } from './base64-json.js';

export type { JWSSignedReceipt };

/** What a Townhall receipt names: the package's receipt payload, and the amount and asset paid. */
export type TicketReceiptClaims = ReceiptPayload & { amount?: string; asset?: string };

export class ReceiptError extends Error {
  override readonly name = 'ReceiptError';
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asReceipt(value: unknown): JWSSignedReceipt | undefined {
  if (!isRecord(value)) return undefined;
  // A ticket (GET /events/{id}/rsvp) or a settlement answer, or the receipt itself.
  const settled = (value['extensions'] as Record<string, { info?: { receipt?: unknown } }> | undefined)?.[
    'offer-receipt'
  ]?.info?.receipt;
  const candidate = value['receipt'] ?? settled ?? value;
  if (!isRecord(candidate) || candidate['format'] !== 'jws' || typeof candidate['signature'] !== 'string')
    return undefined;
  return { format: 'jws', signature: candidate['signature'] };
}

/**
 * A receipt from what a buyer kept: the receipt's JSON (`{ format: "jws", signature }`), a ticket
 * that carries one, the JWS compact string alone, or the PAYMENT-RESPONSE header value.
 */
export function parseReceipt(text: string): JWSSignedReceipt {
  const trimmed = text.trim();
  if (COMPACT_JWS.test(trimmed)) return { format: 'jws', signature: trimmed };
  let value: unknown;
  try {
    value = trimmed.startsWith('{') ? JSON.parse(trimmed) : decodeBase64Json(trimmed, 'PAYMENT-RESPONSE');
  } catch {
    throw new ReceiptError('not a receipt: give its JSON, its JWS, a ticket or the PAYMENT-RESPONSE header');
  }
  const receipt = asReceipt(value);
  if (!receipt) throw new ReceiptError('no offer-receipt receipt in it');
  return receipt;
}

/**
 * The claims of `receipt` once its signature verifies with the key its `kid` names in `keySet`
 * (an `EdDSA` JWS); ReceiptError when no key of the set has that kid, the algorithm is another,
 * or the signature does not verify.
 */
export async function verifyTicketReceipt(
  receipt: JWSSignedReceipt,
  keySet: unknown,
): Promise<TicketReceiptClaims> {
  const keys = isRecord(keySet) && Array.isArray(keySet['keys']) ? (keySet['keys'] as unknown[]) : [];
  let header: { alg: string; kid?: string };
  try {
    header = extractJWSHeader(receipt.signature);
  } catch {
    throw new ReceiptError('the receipt is not a JWS');
  }
  if (header.alg !== 'EdDSA') throw new ReceiptError(`the receipt is signed with ${header.alg}, not EdDSA`);
  const key = keys.find((candidate) => isRecord(candidate) && candidate['kid'] === header.kid);
  if (!isRecord(key)) throw new ReceiptError(`no key of the set has kid ${String(header.kid)}`);
  try {
    const jwk = { ...key, alg: 'EdDSA' } as Parameters<typeof verifyReceiptSignatureJWS>[1];
    return (await verifyReceiptSignatureJWS(receipt, jwk)) as TicketReceiptClaims;
  } catch (error) {
    throw new ReceiptError(
      `the signature does not verify: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

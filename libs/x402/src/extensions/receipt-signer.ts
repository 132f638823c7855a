import { jwkThumbprint } from '@townhall/auth/portable';
import { createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';

/** One public key of the service's set, as `GET /.well-known/jwks.json` publishes it (RFC 8037). */
export interface ReceiptPublicKey {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The raw 32-byte public key, base64url. */
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** What the package's JWS signer is (@x402/extensions/offer-receipt `JWSSigner`). */
export interface JwsSigner {
  kid: string;
  format: 'jws';
  algorithm: string;
  sign: (payload: Uint8Array) => Promise<string>;
}

export class ReceiptKeyError extends Error {
  override readonly name = 'ReceiptKeyError';
}

const SEED_BYTES = 32;
// PKCS#8 DER of an Ed25519 private key is this prefix and the 32-byte seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const KID = /^[\x21-\x7e]{1,128}$/;

/**
 * The service's Ed25519 key for x402 `offer-receipt` (docs/protocol/payments.md "The receipt"):
 * it signs offers and receipts as JWS (alg `EdDSA`) naming its `kid`, and its public half is
 * what `GET /.well-known/jwks.json` publishes. The `kid` is the key's RFC 7638 thumbprint unless
 * configured, so the same key always has the same id.
 */
export class ReceiptSigner {
  readonly kid: string;
  readonly publicKey: ReceiptPublicKey;

  private constructor(
    private readonly privateKey: KeyObject,
    kid: string | undefined,
  ) {
    const x = createPublicKey(privateKey).export({ format: 'jwk' }).x!;
    this.kid = kid ?? jwkThumbprint(x);
    if (!KID.test(this.kid)) throw new ReceiptKeyError('a kid is 1 to 128 printable ASCII characters');
    this.publicKey = { kty: 'OKP', crv: 'Ed25519', x, kid: this.kid, alg: 'EdDSA', use: 'sig' };
  }

  /** From RECEIPT_SIGNING_KEY: the standard (or base64url) base64 of a 32-byte Ed25519 seed. */
  static fromSeed(encoded: string, kid?: string): ReceiptSigner {
    const text = encoded.trim();
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text))
      throw new ReceiptKeyError(`must be the base64 of a ${SEED_BYTES}-byte Ed25519 seed`);
    const seed = Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    if (seed.length !== SEED_BYTES)
      throw new ReceiptKeyError(`must be the base64 of a ${SEED_BYTES}-byte Ed25519 seed`);
    return new ReceiptSigner(seedKey(seed), kid);
  }

  /** A new random key: standalone's first start, or a development service without one. */
  static generate(): { signer: ReceiptSigner; seed: string } {
    const seed = randomBytes(SEED_BYTES);
    return { signer: new ReceiptSigner(seedKey(seed), undefined), seed: seed.toString('base64') };
  }

  /** The package's JWS signer over this key: the base64url Ed25519 signature of the signing input. */
  get jws(): JwsSigner {
    return {
      kid: this.kid,
      format: 'jws',
      algorithm: 'EdDSA',
      sign: (payload) => Promise.resolve(sign(null, payload, this.privateKey).toString('base64url')),
    };
  }
}

function seedKey(seed: Uint8Array): KeyObject {
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  der.set(PKCS8_ED25519_PREFIX);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  return createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
}

/**
 * The older public keys still published (RECEIPT_PUBLISHED_KEYS): a JWK set, as
 * `/.well-known/jwks.json` served it before a rotation. Public keys only, each Ed25519 with a kid.
 */
export function parsePublishedKeys(text: string): ReceiptPublicKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ReceiptKeyError('must be a JSON JWK set: {"keys":[...]}');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length > 20)
    throw new ReceiptKeyError('must be a JSON JWK set: {"keys":[...]} of at most 20 keys');
  return keys.map((key: unknown, index) => {
    const jwk = (typeof key === 'object' && key !== null ? key : {}) as Record<string, unknown>;
    if ('d' in jwk) throw new ReceiptKeyError(`keys[${index}] holds a private key: publish public keys only`);
    const { kty, crv, x, kid } = jwk;
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(x))
      throw new ReceiptKeyError(`keys[${index}] is not an Ed25519 public JWK (kty OKP, crv Ed25519, x)`);
    if (typeof kid !== 'string' || !KID.test(kid))
      throw new ReceiptKeyError(`keys[${index}] needs a kid of 1 to 128 printable ASCII characters`);
    return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' };
  });
}

/** The published set: the current key first, then the older ones (a kid once only, the current one's kept). */
export function receiptKeySet(
  current: ReceiptPublicKey,
  older: readonly ReceiptPublicKey[],
): { keys: ReceiptPublicKey[] } {
  const keys = [current];
  for (const key of older) if (!keys.some((known) => known.kid === key.kid)) keys.push(key);
  return { keys };
}

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import type { WebhookKey } from '@townhall/contracts';

/** Standard Webhooks' serializations of an asymmetric key pair (spec "Signature scheme"). */
export const SECRET_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';
/** The Standard Webhooks identifier of an Ed25519 signature. */
export const SIGNATURE_VERSION = 'v1a';

// PKCS#8 DER of an Ed25519 private key is this prefix and the 32-byte seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SEED_BYTES = 32;

export class WebhookKeyError extends Error {
  override readonly name = 'WebhookKeyError';
}

/** The headers of one delivery (Standard Webhooks "Webhook headers"). */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The service's webhook key: signs `<webhook-id>.<webhook-timestamp>.<body>` with Ed25519
 * (`v1a`), the body being the exact bytes sent. Receivers verify with the public key alone.
 */
export class WebhookSigner {
  /** What `GET /.well-known/townhall/webhook-key` answers. */
  readonly key: WebhookKey;

  private constructor(private readonly privateKey: KeyObject) {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const publicKey = Buffer.from(jwk.x!, 'base64url');
    this.key = {
      keyId: createHash('sha256').update(publicKey).digest('hex').slice(0, 16),
      publicKey: PUBLIC_KEY_PREFIX + publicKey.toString('base64'),
      algorithm: 'ed25519',
    };
  }

  /** From WEBHOOK_SIGNING_KEY: `whsk_` + the base64 of the 32-byte seed. */
  static fromSecret(secret: string): WebhookSigner {
    const encoded = secret.trim();
    if (!encoded.startsWith(SECRET_KEY_PREFIX))
      throw new WebhookKeyError(`must start with ${SECRET_KEY_PREFIX} (Standard Webhooks' secret key form)`);
    const seed = Buffer.from(encoded.slice(SECRET_KEY_PREFIX.length), 'base64');
    if (seed.length !== SEED_BYTES)
      throw new WebhookKeyError(`must hold the base64 of a ${SEED_BYTES}-byte Ed25519 seed`);
    return new WebhookSigner(seedKey(seed));
  }

  /** A new random key (standalone's first start, or a development service without one). */
  static generate(): { signer: WebhookSigner; secret: string } {
    const seed = randomBytes(SEED_BYTES);
    return { signer: new WebhookSigner(seedKey(seed)), secret: SECRET_KEY_PREFIX + seed.toString('base64') };
  }

  /** `v1a,<base64 signature>` of `<id>.<timestamp>.<body>`. */
  sign(id: string, timestamp: number, body: string): string {
    const signed = Buffer.from(`${id}.${timestamp}.${body}`, 'utf8');
    return `${SIGNATURE_VERSION},${sign(null, signed, this.privateKey).toString('base64')}`;
  }

  /** The headers of a delivery of `body` as message `id`, signed now. */
  headers(id: string, body: string, now: Date = new Date()): WebhookHeaders {
    // The id is a CloudEvent id (a UUID): no `.` that could shift the signed fields.
    const timestamp = Math.floor(now.getTime() / 1000);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': this.sign(id, timestamp, body),
    };
  }
}

function seedKey(seed: Buffer): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

import { agentIdFromPublicKey } from '@townhall/auth/portable';

/** An agent's key as the docs page holds it: its agentId, and a WebCrypto key that signs and cannot be exported. */
export interface PageKey {
  readonly agentId: string;
  readonly privateKey: CryptoKey;
}

/** RFC 8410 PKCS #8 of an Ed25519 private key: these 16 bytes, then the 32-byte seed. */
const PKCS8_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);

const FORMATS =
  'paste the whole key file (~/.townhall/key.json), its secretKey (43 base64url characters) or the 32-byte seed as 64 hex digits';
const FORMATS_UNAMBIGUOUS =
  'paste the whole key file (~/.townhall/key.json) or the 32-byte seed as 64 hex digits';

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function fromHex(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** The seed (and the agentId a key file names) of what was pasted. */
function seedOf(text: string): { seed: Uint8Array<ArrayBuffer>; named: string | undefined } {
  const value = String(text).trim();
  if (value.startsWith('{')) {
    let file: { kind?: unknown; version?: unknown; secretKey?: unknown; agentId?: unknown } | null;
    try {
      file = JSON.parse(value) as typeof file;
    } catch {
      throw new Error(`That is not JSON: ${FORMATS}`);
    }
    if (
      !file ||
      file.kind !== 'townhall-agent-key' ||
      file.version !== 1 ||
      typeof file.secretKey !== 'string' ||
      !/^[A-Za-z0-9_-]{43}$/.test(file.secretKey)
    )
      throw new Error('That is not a townhall agent key file (version 1)');
    return {
      seed: fromBase64url(file.secretKey),
      named: typeof file.agentId === 'string' ? file.agentId : undefined,
    };
  }
  if (/^[0-9A-Fa-f]{64}$/.test(value)) return { seed: fromHex(value), named: undefined };
  // An agentId (base58 of the public key) is 43 or 44 characters of an alphabet inside
  // base64url's: a 43-character value with none of base64url's own characters (0 O I l - _)
  // reads as both. Taken as a seed it would sign as another agent, whose key anyone who knows
  // the agentId could derive: refuse it and ask for a form that cannot be mistaken.
  if (/^[1-9A-HJ-NP-Za-km-z]{43}$/.test(value))
    throw new Error(`Not a key: that reads as an agentId (a public key); ${FORMATS_UNAMBIGUOUS}`);
  if (/^[A-Za-z0-9_-]{43}$/.test(value)) return { seed: fromBase64url(value), named: undefined };
  throw new Error(`Not a key: ${FORMATS}`);
}

/**
 * The agent key of what was pasted. The seed is imported into WebCrypto as a non-extractable
 * Ed25519 key and its bytes wiped: from here on the key cannot be read back, only used to sign.
 */
export async function importAgentKey(text: string): Promise<PageKey> {
  if (!globalThis.crypto?.subtle)
    throw new Error('This page cannot sign here: WebCrypto needs a secure context (https, or localhost)');
  const { seed, named } = seedOf(text);
  const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + seed.length);
  pkcs8.set(PKCS8_PREFIX);
  pkcs8.set(seed, PKCS8_PREFIX.length);
  try {
    const exportable = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
    const jwk = await crypto.subtle.exportKey('jwk', exportable);
    const agentId = agentIdFromPublicKey(fromBase64url(jwk.x ?? ''));
    if (named !== undefined && named !== agentId)
      throw new Error(`The secretKey of this key file is not the key of ${named}`);
    const privateKey = await crypto.subtle.importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d },
      { name: 'Ed25519' },
      false,
      ['sign'],
    );
    return Object.freeze({ agentId, privateKey });
  } finally {
    pkcs8.fill(0);
    seed.fill(0);
  }
}

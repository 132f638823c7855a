import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { agentIdFromPublicKey } from './agent-id.js';
import { base64UrlEncode } from './base64url.js';
import { AUTH_SCHEME, buildSigningString, sha256Hex } from './signing-string.js';

// noble's synchronous API needs a SHA-512; wiring it once here keeps sign() synchronous for callers.
ed.hashes.sha512 = sha512;

/** What the signer uses of node:crypto, declared here: this module is typed without Node's types. */
interface NodeEd25519 {
  createPrivateKey(options: { key: Uint8Array; format: 'der'; type: 'pkcs8' }): NodeKeyObject;
  createPublicKey(key: NodeKeyObject): { export(options: { format: 'der'; type: 'spki' }): Uint8Array };
  sign(algorithm: null, data: Uint8Array, key: NodeKeyObject): Uint8Array;
}
type NodeKeyObject = { readonly type: string };

/**
 * node:crypto where the runtime has it (Node, and Deno and Bun, which serve `node:` built-ins),
 * looked up at run time so that this module stays portable: a browser has no `process`, and signs
 * with noble. OpenSSL signs a request in about 30 us where noble takes 350 (a client signing
 * thousands of requests spent most of its CPU there). Ed25519 signatures are deterministic: both
 * give the same bytes.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeEd25519 | undefined;

/** The prefix of an Ed25519 private key's PKCS #8 DER (RFC 8410), the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** Each key's node:crypto KeyObject (agentKeyFromSecret makes it). */
const keyObjects = new WeakMap<AgentKey, NodeKeyObject>();

function privateKeyObject(crypto: NodeEd25519, seed: Uint8Array): NodeKeyObject {
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  der.set(PKCS8_ED25519_PREFIX);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  try {
    return crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

/**
 * The pure Ed25519 signature (RFC 8032, 64 bytes) of `message`: OpenSSL's where node:crypto is,
 * noble's elsewhere. Every signature the library makes goes through here (service-auth-v1 and
 * RFC 9421 alike), so each gets the fast path.
 */
export function ed25519Sign(message: Uint8Array, key: AgentKey): Uint8Array {
  if (!nodeCrypto) return ed.sign(message, key.secretKey);
  let keyObject = keyObjects.get(key);
  if (!keyObject) {
    // A key built by hand rather than by agentKeyFromSecret.
    keyObject = privateKeyObject(nodeCrypto, key.secretKey);
    keyObjects.set(key, keyObject);
  }
  return new Uint8Array(nodeCrypto.sign(null, message, keyObject));
}

const SEED_LENGTH = 32;
const NONCE_BYTES = 24;

export interface AgentKey {
  readonly agentId: string;
  readonly publicKey: Uint8Array;
  /** 32-byte RFC 8032 seed. Lives only with the agent: the server never sees it. */
  readonly secretKey: Uint8Array;
}

export function generateAgentKey(): AgentKey {
  return agentKeyFromSecret(ed.utils.randomSecretKey());
}

export function agentKeyFromSecret(secretKey: Uint8Array): AgentKey {
  if (secretKey.length !== SEED_LENGTH) throw new RangeError('an Ed25519 secret key (seed) is 32 bytes');
  // Copy so that a caller wiping or reusing its buffer cannot change the key under us.
  const seed = Uint8Array.from(secretKey);
  const keyObject = nodeCrypto ? privateKeyObject(nodeCrypto, seed) : undefined;
  // An Ed25519 SubjectPublicKeyInfo is 12 bytes of prefix and the 32-byte key.
  const publicKey = keyObject
    ? new Uint8Array(
        nodeCrypto!.createPublicKey(keyObject).export({ format: 'der', type: 'spki' }).subarray(12),
      )
    : ed.getPublicKey(seed);
  const key: AgentKey = Object.freeze({
    agentId: agentIdFromPublicKey(publicKey),
    publicKey,
    secretKey: seed,
  });
  if (keyObject) keyObjects.set(key, keyObject);
  return key;
}

export function newNonce(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

export function formatTimestamp(date: Date): string {
  return date.toISOString();
}

export interface SignRequestInput {
  key: AgentKey;
  audience: string;
  method: string;
  /** Path plus optional `?query`, exactly as it will be sent. */
  target: string;
  body?: Uint8Array | string;
  timestamp?: string;
  nonce?: string;
}

export interface SignedHeaders {
  authorization: string;
  nonce: string;
  timestamp: string;
  signingString: string;
}

/**
 * Signs whatever it is given without validating or normalising the target: the request on the wire must
 * be byte-identical to what was signed, and tests need to sign hostile targets to see the gateway refuse them.
 */
export function signRequest(input: SignRequestInput): SignedHeaders {
  const request = requestToSign(input.key.agentId, input);
  return signedHeaders(request, ed25519Sign(utf8ToBytes(request.signingString), input.key));
}

/** A request about to be signed by `agentId`: its signing string, and the timestamp and nonce in it. */
export interface RequestToSign {
  agentId: string;
  signingString: string;
  timestamp: string;
  nonce: string;
}

/**
 * The signing string of a request (docs/protocol/signing.md section 2), for a signer that holds its key
 * elsewhere: the /docs page signs it with a WebCrypto key that cannot be exported, then calls `signedHeaders`.
 */
export function requestToSign(agentId: string, input: Omit<SignRequestInput, 'key'>): RequestToSign {
  const timestamp = input.timestamp ?? formatTimestamp(new Date());
  const nonce = input.nonce ?? newNonce();
  const q = input.target.indexOf('?');
  const signingString = buildSigningString({
    audience: input.audience,
    method: input.method.toUpperCase(),
    path: q === -1 ? input.target : input.target.slice(0, q),
    query: q === -1 ? '' : input.target.slice(q + 1),
    agentId,
    timestamp,
    nonce,
    bodySha256: sha256Hex(input.body ?? ''),
  });
  return { agentId, signingString, timestamp, nonce };
}

/** The headers of a request signed with `signature` (its 64 Ed25519 bytes over the signing string). */
export function signedHeaders(request: RequestToSign, signature: Uint8Array): SignedHeaders {
  return {
    authorization: `${AUTH_SCHEME} ${request.agentId}:${bs58.encode(signature)}:${request.timestamp}`,
    nonce: request.nonce,
    timestamp: request.timestamp,
    signingString: request.signingString,
  };
}

export function signMessage(key: AgentKey, message: Uint8Array | string): string {
  const bytes = typeof message === 'string' ? utf8ToBytes(message) : message;
  return bs58.encode(ed25519Sign(bytes, key));
}

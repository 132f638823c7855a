import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { agentIdFromPublicKey } from './agent-id.js';
import { base64UrlEncode } from './base64url.js';
import { AUTH_SCHEME, buildSigningString, sha256Hex } from './signing-string.js';

// noble's synchronous API needs a SHA-512; wiring it once here keeps sign() synchronous for callers.
ed.hashes.sha512 = sha512;

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
  const publicKey = ed.getPublicKey(seed);
  return Object.freeze({ agentId: agentIdFromPublicKey(publicKey), publicKey, secretKey: seed });
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
  return signedHeaders(request, ed.sign(utf8ToBytes(request.signingString), input.key.secretKey));
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
  return bs58.encode(ed.sign(bytes, key.secretKey));
}

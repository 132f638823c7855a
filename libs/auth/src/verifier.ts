import { createHash, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import bs58 from 'bs58';
import { LRUCache } from 'lru-cache';
import { decodeAgentId, isAcceptableAgentKey } from './agent-id.js';
import { decodeBase58Exact } from './base58.js';
import { isPointEncodingCanonical, isScalarCanonical } from './ed25519-encoding.js';
import { AuthError } from './errors.js';
import { assertFresh, parseCredentials, splitRequestTarget } from './header.js';
import type { Credentials } from './header.js';
import { checkContentDigest } from './message-signatures/content-digest.js';
import { BODY_COMPONENT, type DerivedComponent } from './message-signatures/profile.js';
import { derivedComponentValue, signatureBase } from './message-signatures/signature-base.js';
import {
  joinFieldLines,
  readMessageSignature,
  type FieldLines,
  type MessageSignature,
} from './message-signatures/signature-input.js';
import { buildSigningString } from './signing-string.js';

export interface VerifiedRequest {
  agentId: string;
  nonce: string;
  timestamp: string;
  timestampMs: number;
}

export interface PendingRequest {
  scheme: 'service-auth-v1';
  credentials: Credentials;
  path: string;
  query: string;
  method: string;
}

/** An RFC 9421 signed request after its precheck: its signature, and the fields it covers. */
export interface PendingMessageSignature {
  scheme: 'rfc9421';
  signature: MessageSignature;
  /** Each covered header field's value, as the signature base takes it. */
  fields: Map<string, string>;
  path: string;
  query: string;
  method: string;
}

const SIGNATURE_LENGTH = 64;
const CR_OR_LF = /[\r\n]/;

type CachedKey = KeyObject | 'invalid';

function signatureInvalid(detail: string): AuthError {
  return new AuthError('auth.signature_invalid', detail);
}

/** Strict RFC 8032 framing that OpenSSL alone does not guarantee; returns a reason, or null when acceptable. */
function signatureProblem(signature: Uint8Array): string | null {
  if (signature.length !== SIGNATURE_LENGTH) return `signature must be 64 bytes, got ${signature.length}`;
  if (!isScalarCanonical(signature, 32)) return 'signature S is not below the group order';
  if (!isPointEncodingCanonical(signature, 0)) return 'signature R is not a canonical point encoding';
  return null;
}

function decodeSignature(signatureBase58: string): Buffer | null {
  try {
    // A signature of the right length by the fast decoder; anything else by bs58, for its error.
    const bytes = decodeBase58Exact(signatureBase58, SIGNATURE_LENGTH) ?? bs58.decode(signatureBase58);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    return null;
  }
}

export class SignatureVerifier {
  // 'invalid' is cached too: rejecting a known-bad key must not cost the point decompression again.
  private readonly keys: LRUCache<string, CachedKey>;

  constructor(options?: { maxCachedKeys?: number }) {
    this.keys = new LRUCache<string, CachedKey>({ max: options?.maxCachedKeys ?? 100_000 });
  }

  precheck(input: {
    authorization: string | string[] | undefined;
    nonce: string | string[] | undefined;
    method: string;
    rawUrl: string;
    nowMs: number;
  }): PendingRequest {
    const credentials = parseCredentials(input.authorization, input.nonce);
    const { path, query } = splitRequestTarget(input.rawUrl);
    if (input.method === '' || CR_OR_LF.test(input.method)) {
      throw new AuthError('auth.malformed', 'method is empty or contains CR or LF');
    }
    assertFresh(credentials.timestampMs, input.nowMs);
    if (this.keyFor(credentials.agentId) === 'invalid') {
      throw new AuthError('auth.agent_invalid', 'agentId is not an acceptable Ed25519 public key');
    }
    return { scheme: 'service-auth-v1', credentials, path, query, method: input.method.toUpperCase() };
  }

  /**
   * docs/protocol/signing.md "RFC 9421 signatures", before the body is read: the target, the
   * signature's framing, coverage and window, and (for an agentId keyid) the key. A thumbprint
   * keyid is left to the caller to resolve to an agentId.
   */
  precheckMessageSignature(input: {
    signatureInput: FieldLines;
    signature: FieldLines;
    /** Every line of a header field, lower-case name (Node's `headersDistinct`). */
    header: (name: string) => FieldLines;
    hasBody: boolean;
    method: string;
    rawUrl: string;
    nowMs: number;
  }): PendingMessageSignature {
    const { path, query } = splitRequestTarget(input.rawUrl);
    if (input.method === '' || CR_OR_LF.test(input.method)) {
      throw new AuthError('auth.malformed', 'method is empty or contains CR or LF');
    }
    const header = (name: string) => joinFieldLines(input.header(name), name)?.trim();
    const signature = readMessageSignature({ ...input, headers: header });
    assertFresh(signature.createdMs, input.nowMs);
    const fields = new Map<string, string>();
    for (const name of signature.components) {
      if (name.startsWith('@')) continue;
      const value = header(name);
      if (value === undefined) throw new AuthError('auth.malformed', `the covered field ${name} is absent`);
      fields.set(name, value);
    }
    if (
      signature.keyidIsAgentId &&
      !signature.keyidIsThumbprint &&
      this.keyFor(signature.keyid) === 'invalid'
    ) {
      throw new AuthError('auth.agent_invalid', 'keyid is not an acceptable Ed25519 public key');
    }
    return { scheme: 'rfc9421', signature, fields, path, query, method: input.method.toUpperCase() };
  }

  /**
   * Verifies an RFC 9421 signature as `agentId` (the keyid, or what its thumbprint resolved to):
   * the Content-Digest against the body, then the signature over the signature base.
   */
  verifyMessageSignature(
    pending: PendingMessageSignature,
    body: Uint8Array,
    audience: string,
    agentId: string,
  ): VerifiedRequest {
    const { signature, fields } = pending;
    const key = this.keyFor(agentId);
    if (key === 'invalid')
      throw new AuthError('auth.agent_invalid', 'the key is not an acceptable Ed25519 public key');
    const problem = signatureProblem(signature.signature);
    if (problem !== null) throw signatureInvalid(problem);
    const digest = fields.get(BODY_COMPONENT);
    if (body.length > 0 && digest === undefined)
      throw new AuthError('auth.components_missing', `the signature must also cover ${BODY_COMPONENT}`);
    if (digest !== undefined) checkContentDigest(digest, body);
    const request = { method: pending.method, origin: audience, path: pending.path, query: pending.query };
    const base = (emptyQuery: string) =>
      signatureBase(signature.input, (name) =>
        name === '@query' && pending.query === ''
          ? emptyQuery
          : name.startsWith('@')
            ? derivedComponentValue(name as DerivedComponent, request)
            : (fields.get(name) ?? ''),
      );
    const bytes = Buffer.from(signature.signature.buffer, signature.signature.byteOffset, 64);
    const verifies = (text: string) => cryptoVerify(null, Buffer.from(text, 'utf8'), key, bytes);
    // An absent query is `?` (RFC 9421 section 2.2.7); http-message-sig 0.2, under web-bot-auth,
    // signs it as the empty string, so that value is accepted as well.
    const valid =
      verifies(base('?')) ||
      (pending.query === '' && signature.components.includes('@query') && verifies(base('')));
    if (!valid) throw signatureInvalid('signature does not match the signature base');
    return {
      agentId,
      nonce: signature.nonce,
      timestamp: new Date(signature.createdMs).toISOString(),
      timestampMs: signature.createdMs,
    };
  }

  verify(pending: PendingRequest, body: Uint8Array, audience: string): VerifiedRequest {
    const { credentials } = pending;
    const signature = decodeSignature(credentials.signature);
    if (signature === null) throw signatureInvalid('signature is not base58');
    const problem = signatureProblem(signature);
    if (problem !== null) throw signatureInvalid(problem);
    // Normally a cache hit from precheck; a miss only means the entry was evicted in between.
    const key = this.keyFor(credentials.agentId);
    if (key === 'invalid')
      throw new AuthError('auth.agent_invalid', 'agentId is not an acceptable Ed25519 public key');
    const signingString = buildSigningString({
      audience,
      method: pending.method,
      path: pending.path,
      query: pending.query,
      agentId: credentials.agentId,
      timestamp: credentials.timestamp,
      nonce: credentials.nonce,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    });
    if (!cryptoVerify(null, Buffer.from(signingString, 'utf8'), key, signature)) {
      throw signatureInvalid('signature does not match the signing string');
    }
    return {
      agentId: credentials.agentId,
      nonce: credentials.nonce,
      timestamp: credentials.timestamp,
      timestampMs: credentials.timestampMs,
    };
  }

  verifyMessage(agentId: string, message: Uint8Array | string, signatureBase58: string): boolean {
    try {
      const key = this.keyFor(agentId);
      if (key === 'invalid') return false;
      const signature = decodeSignature(signatureBase58);
      if (signature === null || signatureProblem(signature) !== null) return false;
      const bytes = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
      return cryptoVerify(null, bytes, key, signature);
    } catch {
      return false;
    }
  }

  /** Decoding, the small-order check and the KeyObject import each happen once per agentId. */
  private keyFor(agentId: string): CachedKey {
    const cached = this.keys.get(agentId);
    if (cached !== undefined) return cached;
    let resolved: CachedKey;
    try {
      const publicKey = decodeAgentId(agentId);
      resolved = isAcceptableAgentKey(publicKey)
        ? createPublicKey({
            key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
            format: 'jwk',
          })
        : 'invalid';
    } catch {
      resolved = 'invalid';
    }
    this.keys.set(agentId, resolved);
    return resolved;
  }
}

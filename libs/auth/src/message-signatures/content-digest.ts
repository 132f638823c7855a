import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { parseDictionary, serializeDictionary } from 'structured-headers';
import { AuthError } from '../errors.js';

const DIGESTS = { 'sha-256': sha256, 'sha-512': sha512 } as const;

/** RFC 9530 Content-Digest of `body` with SHA-256: `sha-256=:<base64>:`. */
export function contentDigest(body: Uint8Array): string {
  return serializeDictionary({ 'sha-256': toArrayBuffer(sha256(body)) });
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/**
 * Checks a Content-Digest field against the body bytes (RFC 9530): it must hold sha-256 or
 * sha-512, and every digest it holds of those must match. Other algorithms are ignored (section 5:
 * a recipient uses the ones it supports), but never counted as a match.
 */
export function checkContentDigest(field: string, body: Uint8Array): void {
  let dictionary;
  try {
    dictionary = parseDictionary(field);
  } catch {
    throw new AuthError('auth.malformed', 'Content-Digest is not a structured-field dictionary');
  }
  let checked = 0;
  for (const [algorithm, member] of dictionary) {
    if (!(algorithm in DIGESTS)) continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) {
      throw new AuthError('auth.malformed', `Content-Digest ${algorithm} is not a byte sequence`);
    }
    const digest = DIGESTS[algorithm as keyof typeof DIGESTS](body);
    if (!sameBytes(new Uint8Array(value), digest)) {
      throw new AuthError('auth.signature_invalid', `Content-Digest ${algorithm} does not match the body`);
    }
    checked++;
  }
  if (checked === 0) {
    throw new AuthError('auth.malformed', 'Content-Digest must hold sha-256 or sha-512');
  }
}

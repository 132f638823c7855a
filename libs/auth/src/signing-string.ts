import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export const AUTH_SCHEME = 'service';
export const SIGNING_VERSION = 'service-auth-v1';
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SigningFields {
  audience: string;
  method: string;
  path: string;
  query: string;
  agentId: string;
  timestamp: string;
  nonce: string;
  bodySha256: string;
}

/**
 * docs/protocol/signing.md "The signing string". Fields are used verbatim: the verifier rejects CR/LF and bad paths before
 * calling this, and the signer must be able to produce exactly what a (possibly hostile) client sends.
 */
export function buildSigningString(f: SigningFields): string {
  return `${SIGNING_VERSION}\n${f.audience}\n${f.method}\n${f.path}\n${f.query}\n${f.agentId}\n${f.timestamp}\n${f.nonce}\n${f.bodySha256}`;
}

export function sha256Hex(body: Uint8Array | string): string {
  return bytesToHex(sha256(typeof body === 'string' ? utf8ToBytes(body) : body));
}

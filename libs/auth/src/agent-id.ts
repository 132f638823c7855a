import { Point } from '@noble/ed25519';
import bs58 from 'bs58';
import { isPointEncodingCanonical } from './ed25519-encoding.js';
import { AuthError } from './errors.js';

const PUBLIC_KEY_LENGTH = 32;

/** The shape of an agentId: base58 (Bitcoin alphabet) of 32 bytes is 32 to 44 characters. */
export const AGENT_ID_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function decodeAgentId(agentId: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(agentId);
  } catch {
    throw new AuthError('auth.agent_invalid', 'agentId is not base58');
  }
  if (bytes.length !== PUBLIC_KEY_LENGTH) {
    throw new AuthError('auth.agent_invalid', `agentId must decode to 32 bytes, got ${bytes.length}`);
  }
  return bytes;
}

/**
 * Under a small-order key a forged (R = identity, S = 0) signature verifies for every message in both
 * node:crypto and ZIP-215 verifiers, so such keys must never be accepted as identities (docs/protocol/signing.md "Identity: the agentId").
 */
export function isAcceptableAgentKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || !isPointEncodingCanonical(publicKey)) return false;
  let point: Point;
  try {
    point = Point.fromBytes(publicKey, false);
  } catch {
    return false;
  }
  // x = 0 with the sign bit set ("negative zero") is a second encoding of the same point.
  const signBit = ((publicKey[31] ?? 0) & 0x80) !== 0;
  if (signBit && point.x === 0n) return false;
  return !point.isSmallOrder();
}

export function agentIdFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== PUBLIC_KEY_LENGTH) throw new RangeError('an Ed25519 public key is 32 bytes');
  return bs58.encode(publicKey);
}

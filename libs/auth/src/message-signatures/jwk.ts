import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeAgentId } from '../agent-id.js';
import { base64UrlEncode } from '../base64url.js';

/** An agent's public key as a JWK (RFC 8037). */
export interface AgentJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

export function agentJwk(agentId: string): AgentJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(decodeAgentId(agentId)) };
}

/**
 * RFC 7638 thumbprint of an Ed25519 public key: base64url SHA-256 of `{"crv","kty","x"}` in that
 * order with no whitespace. Web Bot Auth's `keyid`.
 */
export function jwkThumbprint(publicKeyX: string): string {
  return base64UrlEncode(sha256(utf8ToBytes(`{"crv":"Ed25519","kty":"OKP","x":"${publicKeyX}"}`)));
}

/** The thumbprint of the agent's key: what a Web Bot Auth signer puts in `keyid`. */
export function agentKeyThumbprint(agentId: string): string {
  return jwkThumbprint(agentJwk(agentId).x);
}

/** A keyid that is a thumbprint: 43 base64url characters (32 bytes). */
export const THUMBPRINT_PATTERN = /^[A-Za-z0-9_-]{43}$/;

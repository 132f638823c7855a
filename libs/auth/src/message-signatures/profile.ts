/**
 * Townhall's profile of RFC 9421 HTTP Message Signatures (docs/protocol/signing.md "RFC 9421
 * signatures"): what a signature made with an agent's Ed25519 key must cover to stand for a
 * `service-auth-v1` one. One source for the signer, the verifier and the Accept-Signature answer.
 */

/** The label the SDK's signer gives its signature; any label verifies. */
export const SIGNATURE_LABEL = 'sig1';

/** The one algorithm accepted: pure Ed25519 (RFC 9421 section 3.3.6). */
export const SIGNATURE_ALGORITHM = 'ed25519';

/** Web Bot Auth's tag; a signature with no tag is accepted too, one with another tag is not ours. */
export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

/** The header naming a signer's key directory (draft-meunier-web-bot-auth-architecture). */
export const SIGNATURE_AGENT_HEADER = 'signature-agent';

/** Where a Signature-Agent's origin publishes its keys (draft-meunier-http-message-signatures-directory). */
export const KEY_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';

/** `expires` may be at most this long after `created`: the window of a service-auth-v1 timestamp. */
export const MAX_SIGNATURE_LIFETIME_SECONDS = 300;

/**
 * A nonce: 16 to 64 random bytes, base64url without padding or standard base64 with it (Web Bot
 * Auth's 64-byte nonces are standard base64, 88 characters).
 */
export const MESSAGE_NONCE_PATTERN = /^(?:[A-Za-z0-9_-]{22,86}|[A-Za-z0-9+/]{22,86}={0,2})$/;

/** The components every accepted signature covers; `@target-uri` stands for `@authority @path @query`. */
export const REQUIRED_COMPONENTS = ['@method', '@authority', '@path', '@query'] as const;

/** Covered as well when the request has a body, its digest checked against the bytes (RFC 9530). */
export const BODY_COMPONENT = 'content-digest';

/** The derived components this service can compute (RFC 9421 section 2.2). */
export const DERIVED_COMPONENTS = [
  '@method',
  '@authority',
  '@scheme',
  '@target-uri',
  '@request-target',
  '@path',
  '@query',
] as const;
export type DerivedComponent = (typeof DERIVED_COMPONENTS)[number];

/**
 * The Accept-Signature value a 401 carries (RFC 9421 section 5.1): what to cover, with which
 * parameters. The label is the SDK's; any label is accepted.
 */
export function acceptSignatureValue(withBody: boolean): string {
  const components = [...REQUIRED_COMPONENTS, ...(withBody ? [BODY_COMPONENT] : [])]
    .map((name) => `"${name}"`)
    .join(' ');
  return `${SIGNATURE_LABEL}=(${components});created;expires;nonce;keyid;alg="${SIGNATURE_ALGORITHM}"`;
}

import { utf8ToBytes } from '@noble/hashes/utils.js';
import { serializeDictionary, type InnerList, type Item } from 'structured-headers';
import { base64UrlEncode } from '../base64url.js';
import { ed25519Sign, type AgentKey } from '../signer.js';
import { contentDigest } from './content-digest.js';
import { agentKeyThumbprint } from './jwk.js';
import {
  BODY_COMPONENT,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  REQUIRED_COMPONENTS,
  SIGNATURE_ALGORITHM,
  SIGNATURE_LABEL,
  type DerivedComponent,
  type WEB_BOT_AUTH_TAG,
} from './profile.js';
import { derivedComponentValue, signatureBase, type RequestComponents } from './signature-base.js';

/**
 * What `keyid` names: the agentId (base58, which every service can verify at once), or the RFC
 * 7638 thumbprint of the key's JWK (Web Bot Auth's keyid, which a service resolves only for an
 * agent it has seen sign, or through a Signature-Agent key directory).
 */
export type MessageKeyid = 'agentId' | 'thumbprint';

/** The signature's lifetime when none is asked for: `expires` = `created` + 60 s. */
export const DEFAULT_SIGNATURE_LIFETIME_SECONDS = 60;

/** 32 random bytes: the nonce of a service-auth-v1 request has 24, Web Bot Auth's 64. */
const NONCE_BYTES = 32;

export interface SignMessageRequestInput {
  key: AgentKey;
  method: string;
  /**
   * The server's audience (its `PUBLIC_BASE_URL`, e.g. `https://api.example.com`): `@authority`
   * is its host and port, never a Host header.
   */
  origin: string;
  /** Path plus optional `?query`, exactly as it will be sent. */
  target: string;
  /** The body exactly as it will be sent; an empty one is no body (no Content-Digest). */
  body?: Uint8Array | string;
  /** Default `agentId`. */
  keyid?: MessageKeyid;
  /** The signing time (`created` is its whole seconds); default now. */
  nowMs?: number;
  /** Default: 32 random bytes, base64url without padding. */
  nonce?: string;
  /** `expires` - `created`, 1 to 300 s (the server's limit); default 60. */
  lifetimeSeconds?: number;
  /** Web Bot Auth's `tag`, for a verifier that wants it; Townhall accepts a signature with or without. */
  tag?: typeof WEB_BOT_AUTH_TAG;
}

/** The header fields of a request signed under RFC 9421, as they are sent. */
export interface MessageSignatureHeaders {
  'Signature-Input': string;
  Signature: string;
  /** Only when the request has a body. */
  'Content-Digest'?: string;
}

/** A request about to be signed under RFC 9421: the signature base, and what went into it. */
export interface MessageToSign {
  /** RFC 9421 section 2.5: sign the UTF-8 bytes of this, LF-joined, no trailing LF. */
  signatureBase: string;
  /** The signature's label in both header fields. */
  label: string;
  /** The covered components and the parameters (`@signature-params`). */
  signatureParams: InnerList;
  /** The Content-Digest field value, when the request has a body. */
  contentDigest: string | undefined;
  /** Unix seconds. */
  created: number;
  expires: number;
  nonce: string;
  keyid: string;
}

export function newMessageNonce(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

/**
 * Signs whatever it is given without validating or normalising the target or the nonce, as
 * `signRequest` does: the request on the wire must be byte-identical to what was signed, and tests
 * need to sign hostile requests to see the gateway refuse them.
 */
export function signMessageRequest(input: SignMessageRequestInput): MessageSignatureHeaders {
  const message = messageToSign(input.key.agentId, input);
  return messageSignatureHeaders(message, ed25519Sign(utf8ToBytes(message.signatureBase), input.key));
}

/**
 * The signature base of a request signed by `agentId` (docs/protocol/signing.md "RFC 9421
 * signatures"), for a signer that holds its key elsewhere: the /docs page signs it with a WebCrypto
 * key that cannot be exported, then calls `messageSignatureHeaders`.
 */
export function messageToSign(agentId: string, input: Omit<SignMessageRequestInput, 'key'>): MessageToSign {
  const lifetime = input.lifetimeSeconds ?? DEFAULT_SIGNATURE_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_SIGNATURE_LIFETIME_SECONDS)
    throw new RangeError(
      `lifetimeSeconds must be a whole number from 1 to ${MAX_SIGNATURE_LIFETIME_SECONDS}`,
    );
  const created = Math.floor((input.nowMs ?? Date.now()) / 1000);
  const expires = created + lifetime;
  const nonce = input.nonce ?? newMessageNonce();
  const keyid = input.keyid === 'thumbprint' ? agentKeyThumbprint(agentId) : agentId;
  const body = typeof input.body === 'string' ? utf8ToBytes(input.body) : input.body;
  const digest = body === undefined || body.length === 0 ? undefined : contentDigest(body);

  const q = input.target.indexOf('?');
  const request: RequestComponents = {
    method: input.method,
    origin: input.origin,
    path: q === -1 ? input.target : input.target.slice(0, q),
    query: q === -1 ? '' : input.target.slice(q + 1),
  };
  const components: string[] = [...REQUIRED_COMPONENTS, ...(digest === undefined ? [] : [BODY_COMPONENT])];
  const parameters = new Map<string, string | number>([
    ['created', created],
    ['expires', expires],
    ['nonce', nonce],
    ['keyid', keyid],
    ['alg', SIGNATURE_ALGORITHM],
  ]);
  if (input.tag !== undefined) parameters.set('tag', input.tag);
  const signatureParams: InnerList = [components.map((name): Item => [name, new Map()]), parameters];
  const base = signatureBase(signatureParams, (name) =>
    name === BODY_COMPONENT ? digest! : derivedComponentValue(name as DerivedComponent, request),
  );
  return {
    signatureBase: base,
    label: SIGNATURE_LABEL,
    signatureParams,
    contentDigest: digest,
    created,
    expires,
    nonce,
    keyid,
  };
}

/** The header fields of a request signed with `signature` (its 64 Ed25519 bytes over the base). */
export function messageSignatureHeaders(
  message: MessageToSign,
  signature: Uint8Array,
): MessageSignatureHeaders {
  return {
    'Signature-Input': serializeDictionary(new Map([[message.label, message.signatureParams]])),
    // A copy typed as over an ArrayBuffer, which structured-headers asks for.
    Signature: serializeDictionary(new Map([[message.label, [new Uint8Array(signature), new Map()]]])),
    ...(message.contentDigest === undefined ? {} : { 'Content-Digest': message.contentDigest }),
  };
}

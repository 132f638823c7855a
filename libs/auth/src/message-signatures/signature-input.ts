import { parseDictionary, type Dictionary, type InnerList } from 'structured-headers';
import { AGENT_ID_PATTERN, decodeAgentId } from '../agent-id.js';
import { AuthError } from '../errors.js';
import { THUMBPRINT_PATTERN } from './jwk.js';
import {
  BODY_COMPONENT,
  DERIVED_COMPONENTS,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  MESSAGE_NONCE_PATTERN,
  REQUIRED_COMPONENTS,
  SIGNATURE_AGENT_HEADER,
  SIGNATURE_ALGORITHM,
  WEB_BOT_AUTH_TAG,
} from './profile.js';

/** One RFC 9421 signature of a request, chosen and checked against the profile (profile.ts). */
export interface MessageSignature {
  label: string;
  /** The `Signature-Input` member: the covered components and the parameters, as received. */
  input: InnerList;
  /** The covered components' names, in order. */
  components: string[];
  /** The 64 signature bytes. */
  signature: Uint8Array;
  keyid: string;
  /** keyid reads as an agentId: base58 of 32 bytes. */
  keyidIsAgentId: boolean;
  /**
   * keyid reads as an RFC 7638 thumbprint (43 base64url characters). A 43-character agentId does
   * too: such a keyid is tried as an agentId first, and as a thumbprint only if that fails.
   */
  keyidIsThumbprint: boolean;
  nonce: string;
  createdMs: number;
  expiresMs: number;
}

/** A header field's lines as Node gives them (`headersDistinct`). */
export type FieldLines = string[] | undefined;

const SIGNATURE_LENGTH = 64;
// A field name (RFC 9110 token), lower case as RFC 9421 section 2.1 wants it.
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const CR_LF_OR_NUL = /[\r\n\0]/;

function malformed(detail: string): AuthError {
  return new AuthError('auth.malformed', detail);
}

/** Dictionary fields may arrive on several lines: they are one list (RFC 9110 section 5.3). */
export function joinFieldLines(lines: FieldLines, name: string): string | undefined {
  if (lines === undefined || lines.length === 0) return undefined;
  const joined = lines.join(', ');
  if (CR_LF_OR_NUL.test(joined)) throw malformed(`${name} contains CR, LF or NUL`);
  return joined;
}

function dictionary(field: string, name: string): Dictionary {
  try {
    return parseDictionary(field);
  } catch {
    throw malformed(`${name} is not a structured-field dictionary (RFC 8941)`);
  }
}

/** A signature this service verifies: Ed25519 (or no alg), tagged web-bot-auth or not at all. */
function isOurs(input: InnerList): boolean {
  const params = input[1];
  const alg = params.get('alg');
  const tag = params.get('tag');
  return (
    (alg === undefined || alg === SIGNATURE_ALGORITHM) && (tag === undefined || tag === WEB_BOT_AUTH_TAG)
  );
}

function integerParam(input: InnerList, name: string): number {
  const value = input[1].get(name);
  if (value === undefined) throw new AuthError('auth.components_missing', `the signature has no ${name}`);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw malformed(`${name} must be a non-negative integer of seconds`);
  return value;
}

function stringParam(input: InnerList, name: string): string {
  const value = input[1].get(name);
  if (value === undefined) throw new AuthError('auth.components_missing', `the signature has no ${name}`);
  if (typeof value !== 'string') throw malformed(`${name} must be a string`);
  return value;
}

function componentNames(input: InnerList): string[] {
  const names: string[] = [];
  for (const [name, parameters] of input[0]) {
    if (typeof name !== 'string') throw malformed('a covered component is not a string');
    if (parameters.size > 0)
      throw malformed(`component parameters (${name};...) are not accepted; cover the field itself`);
    if (names.includes(name)) throw malformed(`${name} is covered twice`);
    const derived = name.startsWith('@');
    if (derived ? !(DERIVED_COMPONENTS as readonly string[]).includes(name) : !FIELD_NAME.test(name))
      throw malformed(`${name} is not a component this service can check`);
    names.push(name);
  }
  return names;
}

function readsAsAgentId(keyid: string): boolean {
  if (!AGENT_ID_PATTERN.test(keyid)) return false;
  try {
    decodeAgentId(keyid);
    return true;
  } catch {
    return false;
  }
}

/** What a signature must cover and does not, or [] (`@target-uri` stands for authority, path and query). */
export function missingComponents(
  covered: readonly string[],
  request: { hasBody: boolean; headers: (name: string) => string | undefined },
): string[] {
  const byTarget = covered.includes('@target-uri');
  const missing: string[] = REQUIRED_COMPONENTS.filter(
    (name) => !covered.includes(name) && !(byTarget && name !== '@method'),
  );
  if (request.hasBody && !covered.includes(BODY_COMPONENT)) missing.push(BODY_COMPONENT);
  if (request.headers(SIGNATURE_AGENT_HEADER) !== undefined && !covered.includes(SIGNATURE_AGENT_HEADER))
    missing.push(SIGNATURE_AGENT_HEADER);
  return missing;
}

/**
 * Picks the request's RFC 9421 signature (the first label that is ours: see `isOurs`) and checks
 * its framing and parameters against the profile, before the body is read or a key looked up.
 * Throws `auth.malformed`, `auth.components_missing` (the caller answers with Accept-Signature)
 * or `auth.timestamp_out_of_window`.
 */
export function readMessageSignature(input: {
  signatureInput: FieldLines;
  signature: FieldLines;
  hasBody: boolean;
  headers: (name: string) => string | undefined;
  nowMs: number;
}): MessageSignature {
  const inputField = joinFieldLines(input.signatureInput, 'Signature-Input');
  const signatureField = joinFieldLines(input.signature, 'Signature');
  if (inputField === undefined) throw malformed('missing Signature-Input header');
  if (signatureField === undefined) throw malformed('missing Signature header');
  const inputs = dictionary(inputField, 'Signature-Input');
  const signatures = dictionary(signatureField, 'Signature');
  let chosen: [string, InnerList] | undefined;
  for (const [label, member] of inputs) {
    if (!Array.isArray(member[0])) throw malformed(`Signature-Input ${label} is not an inner list`);
    if (isOurs(member as InnerList)) {
      chosen = [label, member as InnerList];
      break;
    }
  }
  if (chosen === undefined)
    throw new AuthError(
      'auth.components_missing',
      `no signature in Signature-Input is alg="${SIGNATURE_ALGORITHM}" with no tag or tag="${WEB_BOT_AUTH_TAG}"`,
    );
  const [label, signed] = chosen;
  const components = componentNames(signed);
  const missing = missingComponents(components, input);
  if (missing.length > 0)
    throw new AuthError('auth.components_missing', `the signature must also cover ${missing.join(', ')}`);
  const createdSeconds = integerParam(signed, 'created');
  const expiresSeconds = integerParam(signed, 'expires');
  const nonce = stringParam(signed, 'nonce');
  const keyid = stringParam(signed, 'keyid');
  if (!MESSAGE_NONCE_PATTERN.test(nonce))
    throw malformed('nonce must be 16 to 64 random bytes, base64url without padding or base64');
  if (expiresSeconds <= createdSeconds) throw malformed('expires must be after created');
  if (expiresSeconds - createdSeconds > MAX_SIGNATURE_LIFETIME_SECONDS)
    throw malformed(`expires may be at most ${MAX_SIGNATURE_LIFETIME_SECONDS} s after created`);
  const createdMs = createdSeconds * 1000;
  const expiresMs = expiresSeconds * 1000;
  if (expiresMs <= input.nowMs)
    throw new AuthError('auth.timestamp_out_of_window', 'the signature has expired');
  const member = signatures.get(label);
  if (member === undefined) throw malformed(`Signature has no ${label}`);
  const bytes = member[0];
  if (!(bytes instanceof ArrayBuffer)) throw malformed(`Signature ${label} is not a byte sequence`);
  if (bytes.byteLength !== SIGNATURE_LENGTH)
    throw new AuthError('auth.signature_invalid', `signature must be 64 bytes, got ${bytes.byteLength}`);
  const keyidIsAgentId = readsAsAgentId(keyid);
  const keyidIsThumbprint = THUMBPRINT_PATTERN.test(keyid);
  if (!keyidIsAgentId && !keyidIsThumbprint)
    throw new AuthError(
      'auth.key_unknown',
      'keyid must be the agentId (base58) or the RFC 7638 thumbprint of its Ed25519 JWK',
    );
  return {
    label,
    input: signed,
    components,
    signature: new Uint8Array(bytes),
    keyid,
    keyidIsAgentId,
    keyidIsThumbprint,
    nonce,
    createdMs,
    expiresMs,
  };
}

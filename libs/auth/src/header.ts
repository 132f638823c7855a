import { AuthError } from './errors.js';

/** docs/protocol/signing.md "The two headers", verbatim. The timestamp contains colons, so the header is never split on ':'. */
export const AUTHORIZATION_PATTERN =
  /^service ([1-9A-HJ-NP-Za-km-z]{32,44}):([1-9A-HJ-NP-Za-km-z]{64,88}):(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z)$/;

/** 16..48 random bytes as base64url without padding. */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

export const FRESHNESS = { maxAgeMs: 300_000, maxSkewMs: 30_000 } as const;

export interface Credentials {
  agentId: string;
  signature: string;
  timestamp: string;
  timestampMs: number;
  nonce: string;
}

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;
const CR_OR_LF = /[\r\n]/;

function malformed(detail: string): AuthError {
  return new AuthError('auth.malformed', detail);
}

/**
 * Node's `req.headers` silently drops a second Authorization header (and joins X-Nonce with ', ', which
 * the nonce pattern then refuses), so callers pass `req.headersDistinct` values to make duplicates visible.
 */
function singleHeader(value: string | string[] | undefined, name: string): string {
  let single: string | undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw malformed(`expected exactly one ${name} header, got ${value.length}`);
    single = value[0];
  } else {
    single = value;
  }
  if (single === undefined) throw malformed(`missing ${name} header`);
  if (single === '') throw malformed(`empty ${name} header`);
  if (CR_OR_LF.test(single)) throw malformed(`${name} header contains CR or LF`);
  return single;
}

export function parseCredentials(
  authorization: string | string[] | undefined,
  nonce: string | string[] | undefined,
): Credentials {
  const header = singleHeader(authorization, 'Authorization');
  const nonceValue = singleHeader(nonce, 'X-Nonce');
  const match = AUTHORIZATION_PATTERN.exec(header);
  if (match === null) {
    throw malformed('Authorization must be "service <agentId>:<signature>:<timestamp>"');
  }
  if (!NONCE_PATTERN.test(nonceValue)) {
    throw malformed('X-Nonce must be 22..64 base64url characters without padding');
  }
  const [, agentId = '', signature = '', timestamp = ''] = match;
  return { agentId, signature, timestamp, timestampMs: parseTimestamp(timestamp), nonce: nonceValue };
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/**
 * Strict on purpose: `Date.parse` rolls 2025-02-30 over to March and accepts many other forms, and a
 * timestamp that two implementations read differently is a replay-window bug.
 */
export function parseTimestamp(value: string): number {
  const m = TIMESTAMP_PATTERN.exec(value);
  if (m === null) throw malformed('timestamp must be RFC 3339 UTC: YYYY-MM-DDTHH:MM:SS[.sss]Z');
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '', fraction] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) throw malformed(`timestamp month ${mo} does not exist`);
  if (day < 1 || day > daysInMonth(year, month))
    throw malformed(`timestamp day ${y}-${mo}-${d} does not exist`);
  if (hour > 23 || minute > 59 || second > 59) {
    throw malformed(`timestamp time ${h}:${mi}:${s} does not exist (leap seconds are not accepted)`);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0'));
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

export function assertFresh(timestampMs: number, nowMs: number): void {
  if (timestampMs < nowMs - FRESHNESS.maxAgeMs) {
    throw new AuthError('auth.timestamp_out_of_window', 'timestamp is more than 300 s in the past');
  }
  if (timestampMs > nowMs + FRESHNESS.maxSkewMs) {
    throw new AuthError('auth.timestamp_out_of_window', 'timestamp is more than 30 s in the future');
  }
}

// Percent-encoded '/', '.' and '\' let a router or proxy see a different path than the one signed.
const ENCODED_SEPARATOR = /%(2f|2e|5c)/i;
// A request-target is visible ASCII only (RFC 9112); anything else never came from a conforming client.
const NON_VISIBLE_ASCII = /[^\x21-\x7e]/;

export function splitRequestTarget(rawUrl: string): { path: string; query: string } {
  if (CR_OR_LF.test(rawUrl)) throw malformed('request target contains CR or LF');
  if (NON_VISIBLE_ASCII.test(rawUrl))
    throw malformed('request target contains a space, control or non-ASCII character');
  if (!rawUrl.startsWith('/')) throw malformed('request target must be origin-form and start with "/"');
  if (rawUrl.includes('#')) throw malformed('request target contains "#"');
  if (rawUrl.includes('\\')) throw malformed('request target contains a backslash');
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = q === -1 ? '' : rawUrl.slice(q + 1);
  if (path.includes('//')) throw malformed('path contains "//"');
  if (ENCODED_SEPARATOR.test(path)) throw malformed('path contains %2F, %2E or %5C');
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') throw malformed('path contains a dot segment');
  }
  return { path, query };
}

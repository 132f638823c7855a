import { AuthError } from './errors.js';
import type { AuthFailureCode } from './errors.js';
import {
  AUTHORIZATION_PATTERN,
  FRESHNESS,
  NONCE_PATTERN,
  assertFresh,
  parseCredentials,
  parseTimestamp,
  splitRequestTarget,
} from './header.js';

const AGENT = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
const SIG = '3cyXYwJAbZPFZLKreMsa7PDZwWnaqNY7ez5hSdnuWztWe3wq1Bnr5BQ1qETapeSEMskkuVARHyKfr45FAG1gsaNU';
const TS = '2025-01-01T12:00:00.000Z';
const NONCE = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX';
const AUTH = `service ${AGENT}:${SIG}:${TS}`;

function failureCode(fn: () => unknown): AuthFailureCode | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AuthError) return error.code;
    throw error;
  }
}

describe('patterns', () => {
  it('are exactly the ones in docs/protocol/signing.md', () => {
    expect(AUTHORIZATION_PATTERN.source).toBe(
      '^service ([1-9A-HJ-NP-Za-km-z]{32,44}):([1-9A-HJ-NP-Za-km-z]{64,88}):(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z)$',
    );
    expect(AUTHORIZATION_PATTERN.flags).toBe('');
    expect(NONCE_PATTERN.source).toBe('^[A-Za-z0-9_-]{22,64}$');
    expect(FRESHNESS).toEqual({ maxAgeMs: 300_000, maxSkewMs: 30_000 });
  });
});

describe('parseCredentials', () => {
  it('parses a well-formed pair, timestamp colons included', () => {
    expect(parseCredentials(AUTH, NONCE)).toEqual({
      agentId: AGENT,
      signature: SIG,
      timestamp: TS,
      timestampMs: Date.parse(TS),
      nonce: NONCE,
    });
    expect(parseCredentials([AUTH], [NONCE]).agentId).toBe(AGENT);
  });

  it('accepts timestamps without or with shorter fractions', () => {
    expect(parseCredentials(`service ${AGENT}:${SIG}:2025-01-01T12:00:00Z`, NONCE).timestampMs).toBe(
      Date.parse(TS),
    );
    expect(parseCredentials(`service ${AGENT}:${SIG}:2025-01-01T12:00:00.5Z`, NONCE).timestampMs).toBe(
      Date.parse(TS) + 500,
    );
  });

  it.each<[string, string | string[] | undefined]>([
    ['missing', undefined],
    ['empty', ''],
    ['two values', [AUTH, AUTH]],
    ['zero values', []],
    ['wrong scheme Service', `Service ${AGENT}:${SIG}:${TS}`],
    ['wrong scheme SERVICE', `SERVICE ${AGENT}:${SIG}:${TS}`],
    ['Bearer', `Bearer ${AGENT}`],
    ['scheme only', 'service'],
    ['no timestamp', `service ${AGENT}:${SIG}`],
    ['no signature', `service ${AGENT}::${TS}`],
    ['agentId only', `service ${AGENT}`],
    ['extra colon part', `service ${AGENT}:${SIG}:${TS}:extra`],
    ['extra leading part', `service x:${AGENT}:${SIG}:${TS}`],
    ['two spaces after scheme', `service  ${AGENT}:${SIG}:${TS}`],
    ['tab after scheme', `service\t${AGENT}:${SIG}:${TS}`],
    ['no space after scheme', `service${AGENT}:${SIG}:${TS}`],
    ['leading space', ` ${AUTH}`],
    ['trailing space', `${AUTH} `],
    ['space around colon', `service ${AGENT} :${SIG}:${TS}`],
    ['trailing LF', `${AUTH}\n`],
    ['trailing CRLF', `${AUTH}\r\n`],
    ['CR inside', `service ${AGENT}:${SIG}\r:${TS}`],
    ['agentId with 0', `service ${AGENT.slice(0, -1)}0:${SIG}:${TS}`],
    ['agentId with O', `service ${AGENT.slice(0, -1)}O:${SIG}:${TS}`],
    ['agentId with I', `service ${AGENT.slice(0, -1)}I:${SIG}:${TS}`],
    ['agentId with l', `service ${AGENT.slice(0, -1)}l:${SIG}:${TS}`],
    ['signature with 0', `service ${AGENT}:${SIG.slice(0, -1)}0:${TS}`],
    ['signature with O', `service ${AGENT}:${SIG.slice(0, -1)}O:${TS}`],
    ['signature with I', `service ${AGENT}:${SIG.slice(0, -1)}I:${TS}`],
    ['signature with l', `service ${AGENT}:${SIG.slice(0, -1)}l:${TS}`],
    ['agentId 31 chars', `service ${AGENT.slice(0, 31)}:${SIG}:${TS}`],
    ['agentId 45 chars', `service ${AGENT}1:${SIG}:${TS}`],
    ['signature 63 chars', `service ${AGENT}:${SIG.slice(0, 63)}:${TS}`],
    ['signature 89 chars', `service ${AGENT}:${SIG}1:${TS}`],
    ['lower-case t', `service ${AGENT}:${SIG}:2025-01-01t12:00:00.000Z`],
    ['lower-case z', `service ${AGENT}:${SIG}:2025-01-01T12:00:00.000z`],
    ['missing Z', `service ${AGENT}:${SIG}:2025-01-01T12:00:00.000`],
    ['offset +00:00', `service ${AGENT}:${SIG}:2025-01-01T12:00:00.000+00:00`],
    ['4 fraction digits', `service ${AGENT}:${SIG}:2025-01-01T12:00:00.0000Z`],
    ['empty fraction', `service ${AGENT}:${SIG}:2025-01-01T12:00:00.Z`],
    ['no seconds', `service ${AGENT}:${SIG}:2025-01-01T12:00Z`],
    ['space instead of T', `service ${AGENT}:${SIG}:2025-01-01 12:00:00.000Z`],
    ['unix seconds', `service ${AGENT}:${SIG}:1735732800`],
    ['impossible date 2025-02-30', `service ${AGENT}:${SIG}:2025-02-30T12:00:00.000Z`],
    ['hour 24', `service ${AGENT}:${SIG}:2025-01-01T24:00:00.000Z`],
  ])('rejects Authorization %s as auth.malformed', (_name, authorization) => {
    expect(failureCode(() => parseCredentials(authorization, NONCE))).toBe('auth.malformed');
  });

  it.each<[string, string | string[] | undefined]>([
    ['missing', undefined],
    ['empty', ''],
    ['two values', [NONCE, NONCE]],
    ['zero values', []],
    ['21 chars', 'A'.repeat(21)],
    ['65 chars', 'A'.repeat(65)],
    ['with +', `${NONCE.slice(0, -1)}+`],
    ['with /', `${NONCE.slice(0, -1)}/`],
    ['with = padding', `${NONCE}=`],
    ['with space', `${NONCE.slice(0, -1)} `],
    ['with LF', `${NONCE}\n`],
    ['with CR', `${NONCE.slice(0, 10)}\r${NONCE.slice(10)}`],
  ])('rejects X-Nonce %s as auth.malformed', (_name, nonce) => {
    expect(failureCode(() => parseCredentials(AUTH, nonce))).toBe('auth.malformed');
  });

  it('accepts nonces of 22 and 64 characters', () => {
    expect(parseCredentials(AUTH, 'A'.repeat(22)).nonce).toBe('A'.repeat(22));
    expect(parseCredentials(AUTH, '-_'.repeat(32)).nonce).toBe('-_'.repeat(32));
  });

  it('gives a specific detail', () => {
    expect(() => parseCredentials(AUTH, [NONCE, NONCE])).toThrow('exactly one X-Nonce header, got 2');
    expect(() => parseCredentials(undefined, NONCE)).toThrow('missing Authorization header');
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2025-01-01T12:00:00.000Z', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T12:00:00Z', Date.UTC(2025, 0, 1, 12)],
    ['2025-01-01T12:00:00.1Z', Date.UTC(2025, 0, 1, 12, 0, 0, 100)],
    ['2025-01-01T12:00:00.01Z', Date.UTC(2025, 0, 1, 12, 0, 0, 10)],
    ['2025-01-01T12:00:00.001Z', Date.UTC(2025, 0, 1, 12, 0, 0, 1)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T23:59:59.999Z', Date.UTC(2000, 1, 29, 23, 59, 59, 999)],
    ['2025-12-31T23:59:59Z', Date.UTC(2025, 11, 31, 23, 59, 59)],
    ['0001-01-01T00:00:00Z', Date.parse('0001-01-01T00:00:00Z')],
  ])('accepts %s', (value, expected) => {
    expect(parseTimestamp(value)).toBe(expected);
  });

  it.each([
    '2025-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2025-04-31T00:00:00Z',
    '2025-01-32T00:00:00Z',
    '2025-01-00T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-01-01T24:00:00Z',
    '2025-01-01T23:60:00Z',
    '2025-12-31T23:59:60Z',
    '2025-01-01t00:00:00Z',
    '2025-01-01T00:00:00z',
    '2025-01-01T00:00:00',
    '2025-01-01T00:00:00+00:00',
    '2025-01-01T00:00:00.0000Z',
    '2025-01-01T00:00Z',
    '2025-01-01 00:00:00Z',
    ' 2025-01-01T00:00:00Z',
    '2025-01-01T00:00:00Z ',
    '25-01-01T00:00:00Z',
    '+002025-01-01T00:00:00Z',
    '２025-01-01T00:00:00Z',
    '',
  ])('rejects %j as auth.malformed', (value) => {
    expect(failureCode(() => parseTimestamp(value))).toBe('auth.malformed');
  });
});

describe('assertFresh', () => {
  const now = Date.UTC(2025, 0, 1, 12);

  it.each([
    ['now - 300 s', now - 300_000],
    ['now - 290 s', now - 290_000],
    ['now', now],
    ['now + 30 s', now + 30_000],
  ])('accepts %s', (_name, ts) => {
    expect(() => assertFresh(ts, now)).not.toThrow();
  });

  it.each([
    ['now - 300.001 s', now - 300_001],
    ['now - 301 s', now - 301_000],
    ['now + 30.001 s', now + 30_001],
    ['now + 31 s', now + 31_000],
    ['year 2099', Date.UTC(2099, 0, 1)],
    ['epoch', 0],
  ])('rejects %s as auth.timestamp_out_of_window', (_name, ts) => {
    expect(failureCode(() => assertFresh(ts, now))).toBe('auth.timestamp_out_of_window');
  });
});

describe('splitRequestTarget', () => {
  it.each([
    ['/', '/', ''],
    ['/directory/abc', '/directory/abc', ''],
    ['/directory/abc?x=1', '/directory/abc', 'x=1'],
    ['/events?status=live&limit=10', '/events', 'status=live&limit=10'],
    ['/a?', '/a', ''],
    ['/a?b?c', '/a', 'b?c'],
    ['/a?next=/x/../y%2F', '/a', 'next=/x/../y%2F'],
    ['/a/', '/a/', ''],
    ['/a/.well-known/..x', '/a/.well-known/..x', ''],
    ['/a%20b', '/a%20b', ''],
  ])('splits %j without normalising', (raw, path, query) => {
    expect(splitRequestTarget(raw)).toEqual({ path, query });
  });

  it.each([
    '',
    'directory/abc',
    'http://api.example.com/a',
    '*',
    '/a/../b',
    '/a/./b',
    '/..',
    '/.',
    '/a/..',
    '/a/.',
    '/./a',
    '//a',
    '/a//b',
    '/a/b//',
    '/a%2Fb',
    '/a%2fb',
    '/%2e%2e/x',
    '/%2E%2E/x',
    '/a/%2e/b',
    '/a%5Cb',
    '/a%5cb',
    '/a\\b',
    '/a?x=\\',
    '/a#frag',
    '/a?x=1#frag',
    '/a\r',
    '/a\nb',
    '/a?x=\r\n',
    '/a b',
    '/a\tb',
    '/a\u0000b',
    '/caf\u00e9',
  ])('rejects %j as auth.malformed', (raw) => {
    expect(failureCode(() => splitRequestTarget(raw))).toBe('auth.malformed');
  });
});

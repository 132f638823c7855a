import fc from 'fast-check';
import { AuthError, type AuthFailureCode } from './errors.js';
import { parseCredentials, parseTimestamp, splitRequestTarget } from './header.js';
import { formatTimestamp, generateAgentKey, newNonce, signRequest, type AgentKey } from './signer.js';
import { SignatureVerifier } from './verifier.js';

// Properties of the signed-request parser and verifier (docs/api.md "Calling it"; vectors in libs/auth/test-vectors), over inputs
// fast-check makes up: a hostile header never throws anything but AuthError with a known code, a
// signed request always verifies, and no single changed character of a signed field verifies.

const CODES: readonly AuthFailureCode[] = [
  'auth.malformed',
  'auth.timestamp_out_of_window',
  'auth.agent_invalid',
  'auth.signature_invalid',
  'auth.nonce_replayed',
];
const AUDIENCE = 'https://api.example.com';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const NOW = Date.UTC(2026, 5, 1, 12);

/** 'ok' with the result, or the AuthError code; any other throw fails the property. */
function outcome<T>(run: () => T): { ok: T } | { code: AuthFailureCode } {
  try {
    return { ok: run() };
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    expect(CODES).toContain(error.code);
    return { code: error.code };
  }
}

const base58 = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...BASE58), minLength: min, maxLength: max });
const digits = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
const two = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
/** YYYY-MM-DDTHH:MM:SS[.sss]Z with each field around its edges: Feb 29-31, hour 24, second 60. */
const timestampShaped = fc
  .tuple(
    fc.oneof(digits(4), fc.constantFrom('0000', '1900', '2000', '2024', '2025', '2100', '9999')),
    two(0, 13),
    two(0, 32),
    two(0, 25),
    two(0, 61),
    two(0, 61),
    fc.option(fc.oneof(digits(1), digits(2), digits(3)), { nil: undefined }),
  )
  .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${ms === undefined ? '' : `.${ms}`}Z`);
/** Authorization values: anything, and things that look almost right. */
const authorization = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc
    .tuple(base58(30, 46), base58(60, 90), fc.oneof(timestampShaped, fc.string({ maxLength: 30 })))
    .map(([agentId, signature, timestamp]) => `service ${agentId}:${signature}:${timestamp}`),
  fc
    .tuple(fc.constantFrom('service', 'Service', 'SERVICE', 'Bearer', ''), fc.string())
    .map(([scheme, rest]) => `${scheme} ${rest}`),
);
const headerValue = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof(value, fc.constant(undefined), fc.array(value, { maxLength: 3 }));
const nonce = fc.oneof(fc.string(), fc.base64String({ maxLength: 80 }), fc.constant(newNonce()));

describe('the Authorization parser (property)', () => {
  it('never throws anything but AuthError with a known code, whatever the two headers say', () => {
    fc.assert(
      fc.property(headerValue(authorization), headerValue(nonce), (auth, nonceValue) => {
        const result = outcome(() => parseCredentials(auth, nonceValue));
        if ('ok' in result) expect(Number.isFinite(result.ok.timestampMs)).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads a timestamp only if it is a real calendar instant, and then exactly that instant', () => {
    fc.assert(
      fc.property(fc.oneof(timestampShaped, fc.string()), (value) => {
        const result = outcome(() => parseTimestamp(value));
        if (!('ok' in result)) return;
        const date = new Date(result.ok);
        const year = date.getUTCFullYear();
        expect(year).toBeGreaterThanOrEqual(0);
        // toISOString writes years 0000-9999 as four digits: the round trip is the original text.
        expect(date.toISOString().slice(0, 19)).toBe(value.slice(0, 19));
      }),
      { numRuns: 3_000 },
    );
  });

  it('splits a request target into exactly its path and query, or refuses it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webPath().map((path) => `${path}?${path}`),
          fc.string(),
          fc.string({ unit: 'binary' }).map((s) => `/${s}`),
        ),
        (target) => {
          const result = outcome(() => splitRequestTarget(target));
          if ('ok' in result) {
            const { path, query } = result.ok;
            expect(target === path || target === `${path}?${query}`).toBe(true);
            expect(path.split('/')).not.toContain('..');
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

interface Wire {
  method: string;
  target: string;
  body: string;
  authorization: string;
  nonce: string;
  audience: string;
}

const keys: AgentKey[] = [generateAgentKey(), generateAgentKey()];
const segment = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_~'),
  minLength: 1,
  maxLength: 12,
});
const signedRequest = fc
  .record({
    key: fc.constantFrom(...keys),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    path: fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    query: fc.option(fc.array(fc.tuple(segment, segment), { maxLength: 3 }), { nil: undefined }),
    body: fc.oneof(fc.constant(''), fc.json(), fc.string({ unit: 'grapheme' })),
    ageMs: fc.integer({ min: -29_000, max: 299_000 }),
  })
  .map(({ key, method, path, query, body, ageMs }): Wire => {
    const target = query === undefined ? path : `${path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
    const signed = signRequest({
      key,
      audience: AUDIENCE,
      method,
      target,
      body,
      timestamp: formatTimestamp(new Date(NOW - ageMs)),
    });
    return {
      method,
      target,
      body,
      authorization: signed.authorization,
      nonce: signed.nonce,
      audience: AUDIENCE,
    };
  });

function verify(wire: Wire, verifier = new SignatureVerifier()) {
  return outcome(() => {
    const pending = verifier.precheck({
      authorization: wire.authorization,
      nonce: wire.nonce,
      method: wire.method,
      rawUrl: wire.target,
      nowMs: NOW,
    });
    return verifier.verify(pending, Buffer.from(wire.body, 'utf8'), wire.audience);
  });
}

/** `text` with the character at `at` (modulo its length) replaced by `by`, if that changes it. */
function changed(text: string, at: number, by: string): string {
  const chars = [...text];
  if (chars.length === 0) return by;
  const i = at % chars.length;
  chars[i] = chars[i] === by ? (by === 'a' ? 'b' : 'a') : by;
  return chars.join('');
}

describe('the verifier (property)', () => {
  const verifier = new SignatureVerifier();

  it('accepts every request signed by signRequest, as signed by its key', () => {
    fc.assert(
      fc.property(signedRequest, (wire) => {
        const result = verify(wire, verifier);
        expect(result).toEqual({
          ok: expect.objectContaining({
            agentId: wire.authorization.slice(8, wire.authorization.indexOf(':')),
          }),
        });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses any single-character change of a signed field with an AuthError', () => {
    const field = fc.constantFrom(
      'method',
      'target',
      'body',
      'nonce',
      'audience',
      'agentId',
      'signature',
      'timestamp',
    );
    fc.assert(
      fc.property(
        signedRequest,
        field,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme-ascii' }),
        (wire, which, at, by) => {
          const [, agentId = '', signature = '', timestamp = ''] =
            /^service ([^:]+):([^:]+):(.+)$/.exec(wire.authorization) ?? [];
          const header = (parts: { agentId?: string; signature?: string; timestamp?: string }) =>
            `service ${parts.agentId ?? agentId}:${parts.signature ?? signature}:${parts.timestamp ?? timestamp}`;
          let tampered: Wire;
          switch (which) {
            case 'method': {
              // Methods are compared upper-cased (a lower-case method on the wire is accepted on
              // purpose, see verifier.spec.ts), so a change of case alone is not a change.
              const other = changed(wire.method, at, by);
              fc.pre(other.toUpperCase() !== wire.method);
              tampered = { ...wire, method: other };
              break;
            }
            case 'agentId':
              tampered = { ...wire, authorization: header({ agentId: changed(agentId, at, by) }) };
              break;
            case 'signature':
              tampered = { ...wire, authorization: header({ signature: changed(signature, at, by) }) };
              break;
            case 'timestamp':
              tampered = { ...wire, authorization: header({ timestamp: changed(timestamp, at, by) }) };
              break;
            default:
              tampered = {
                ...wire,
                [which]: changed(wire[which as 'target' | 'body' | 'nonce' | 'audience'], at, by),
              };
          }
          const result = verify(tampered, verifier);
          expect(result).toEqual({ code: expect.any(String) });
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { jest } from '@jest/globals';
import { Point, verify as verifyZip215 } from '@noble/ed25519';
import bs58 from 'bs58';
import { AuthError } from './errors.js';
import type { AuthFailureCode } from './errors.js';
import { AUTHORIZATION_PATTERN } from './header.js';
import { formatTimestamp, generateAgentKey, signMessage, signRequest } from './signer.js';
import type { AgentKey } from './signer.js';
import { SignatureVerifier } from './verifier.js';
import type { VerifiedRequest } from './verifier.js';

const AUDIENCE = 'https://api.example.com';
const NOW = Date.UTC(2025, 0, 1, 12);
const ORDER_L = 2n ** 252n + 27742317777372353535851937790883648493n;

const key = generateAgentKey();
const otherKey = generateAgentKey();

interface WireRequest {
  authorization: string | string[] | undefined;
  nonce: string | string[] | undefined;
  method: string;
  rawUrl: string;
  body: Uint8Array;
}

function signed(
  options: {
    key?: AgentKey;
    method?: string;
    target?: string;
    body?: string;
    timestamp?: string;
    nonce?: string;
  } = {},
): WireRequest {
  const method = options.method ?? 'POST';
  const target = options.target ?? '/events/e1/questions?draft=false';
  const body = options.body ?? '{"text":"Why?"}';
  const headers = signRequest({
    key: options.key ?? key,
    audience: AUDIENCE,
    method,
    target,
    body,
    timestamp: options.timestamp ?? formatTimestamp(new Date(NOW)),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  });
  return {
    authorization: headers.authorization,
    nonce: headers.nonce,
    method,
    rawUrl: target,
    body: Buffer.from(body, 'utf8'),
  };
}

function run(
  request: WireRequest,
  options: { audience?: string; nowMs?: number; verifier?: SignatureVerifier } = {},
): VerifiedRequest {
  const verifier = options.verifier ?? new SignatureVerifier();
  const pending = verifier.precheck({
    authorization: request.authorization,
    nonce: request.nonce,
    method: request.method,
    rawUrl: request.rawUrl,
    nowMs: options.nowMs ?? NOW,
  });
  return verifier.verify(pending, request.body, options.audience ?? AUDIENCE);
}

function outcome(
  request: WireRequest,
  options: { audience?: string; nowMs?: number } = {},
): AuthFailureCode | 'ok' {
  try {
    run(request, options);
    return 'ok';
  } catch (error) {
    if (error instanceof AuthError) return error.code;
    throw error;
  }
}

function parts(authorization: string | string[] | undefined): {
  agentId: string;
  signature: string;
  timestamp: string;
} {
  const match = AUTHORIZATION_PATTERN.exec(String(authorization));
  if (match === null) throw new Error('fixture is not a valid Authorization header');
  return { agentId: match[1] ?? '', signature: match[2] ?? '', timestamp: match[3] ?? '' };
}

function withSignatureBytes(request: WireRequest, signature: Uint8Array): WireRequest {
  const { agentId, timestamp } = parts(request.authorization);
  return { ...request, authorization: `service ${agentId}:${bs58.encode(signature)}:${timestamp}` };
}

function readLE(bytes: Uint8Array, offset: number): bigint {
  let n = 0n;
  for (let i = 31; i >= 0; i--) n = (n << 8n) | BigInt(bytes[offset + i] ?? 0);
  return n;
}

function writeLE(bytes: Uint8Array, offset: number, n: bigint): void {
  for (let i = 0; i < 32; i++) bytes[offset + i] = Number((n >> BigInt(8 * i)) & 0xffn);
}

function nodeKey(publicKey: Uint8Array) {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
}

describe('happy path', () => {
  it('accepts what signRequest produced and reports who signed it', () => {
    const request = signed();
    expect(run(request)).toEqual({
      agentId: key.agentId,
      nonce: request.nonce,
      timestamp: formatTimestamp(new Date(NOW)),
      timestampMs: NOW,
    });
  });

  it.each([
    ['GET', '/directory/abc', ''],
    ['GET', '/events?status=live&limit=10', ''],
    ['PUT', '/directory/me', '{"handle":"alice","displayName":"Alice"}'],
    ['DELETE', '/a/b/', ''],
    ['POST', '/x?', 'é'],
  ])('accepts %s %s', (method, target, body) => {
    expect(outcome(signed({ method, target, body }))).toBe('ok');
  });

  it('accepts a timestamp without fraction, and a lower-case method on the wire', () => {
    expect(outcome(signed({ timestamp: '2025-01-01T12:00:00Z' }))).toBe('ok');
    expect(outcome({ ...signed({ method: 'patch' }), method: 'patch' })).toBe('ok');
  });

  it('accepts a 2024-02-29 timestamp near that day', () => {
    const timestamp = '2024-02-29T08:00:00.000Z';
    expect(outcome(signed({ timestamp }), { nowMs: Date.parse(timestamp) + 1_000 })).toBe('ok');
  });
});

describe('anything changed after signing fails with auth.signature_invalid', () => {
  it('wrong audience (staging signature sent to production)', () => {
    expect(outcome(signed(), { audience: 'https://staging.api.example.com' })).toBe('auth.signature_invalid');
    expect(outcome(signed(), { audience: `${AUDIENCE}/` })).toBe('auth.signature_invalid');
  });

  it('method', () => {
    expect(outcome({ ...signed({ method: 'POST' }), method: 'PUT' })).toBe('auth.signature_invalid');
  });

  it('path', () => {
    expect(outcome({ ...signed({ target: '/events/e1' }), rawUrl: '/events/e2' })).toBe(
      'auth.signature_invalid',
    );
    expect(outcome({ ...signed({ target: '/events/e1' }), rawUrl: '/events/e1/' })).toBe(
      'auth.signature_invalid',
    );
  });

  it('query', () => {
    expect(outcome({ ...signed({ target: '/events?a=1' }), rawUrl: '/events?a=2' })).toBe(
      'auth.signature_invalid',
    );
    expect(outcome({ ...signed({ target: '/events?a=1&b=2' }), rawUrl: '/events?b=2&a=1' })).toBe(
      'auth.signature_invalid',
    );
    expect(outcome({ ...signed({ target: '/events' }), rawUrl: '/events?a=1' })).toBe(
      'auth.signature_invalid',
    );
  });

  it('body', () => {
    expect(outcome({ ...signed({ body: '{"a":1}' }), body: Buffer.from('{"a":2}') })).toBe(
      'auth.signature_invalid',
    );
    expect(outcome({ ...signed({ body: '' }), body: Buffer.from(' ') })).toBe('auth.signature_invalid');
  });

  it('nonce', () => {
    const request = signed({ nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX' });
    expect(outcome({ ...request, nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYY' })).toBe('auth.signature_invalid');
  });

  it('timestamp (same instant, different spelling)', () => {
    const request = signed({ timestamp: '2025-01-01T12:00:00.000Z' });
    const { agentId, signature } = parts(request.authorization);
    const respelled = `service ${agentId}:${signature}:2025-01-01T12:00:00Z`;
    expect(outcome({ ...request, authorization: respelled })).toBe('auth.signature_invalid');
  });

  it('agentId (signature made by another key)', () => {
    const request = signed({ key: otherKey });
    const { signature, timestamp } = parts(request.authorization);
    expect(outcome({ ...request, authorization: `service ${key.agentId}:${signature}:${timestamp}` })).toBe(
      'auth.signature_invalid',
    );
  });
});

describe('signature encoding', () => {
  const base = signed();
  const good = bs58.decode(parts(base.authorization).signature);

  it.each([63, 65])(
    'a signature of %i bytes (but a valid header shape) is auth.signature_invalid',
    (length) => {
      const bytes = new Uint8Array(length).fill(0x21);
      bytes[0] = 1;
      const request = withSignatureBytes(base, bytes);
      expect(parts(request.authorization).signature.length).toBeLessThanOrEqual(88);
      expect(outcome(request)).toBe('auth.signature_invalid');
    },
  );

  it('a non-base58 signature is auth.malformed', () => {
    const { agentId, signature, timestamp } = parts(base.authorization);
    const authorization = `service ${agentId}:0${signature.slice(1)}:${timestamp}`;
    expect(outcome({ ...base, authorization })).toBe('auth.malformed');
  });

  it('malleated S + L is rejected (OpenSSL happens to reject it too; ours does not depend on that)', () => {
    const malleated = Uint8Array.from(good);
    writeLE(malleated, 32, readLE(good, 32) + ORDER_L);
    expect(readLE(malleated, 32) < 2n ** 256n).toBe(true);
    const message = Buffer.from(
      signRequest({
        key,
        audience: AUDIENCE,
        method: base.method,
        target: base.rawUrl,
        body: base.body,
        timestamp: parts(base.authorization).timestamp,
        nonce: String(base.nonce),
      }).signingString,
    );
    expect(cryptoVerify(null, message, nodeKey(key.publicKey), good)).toBe(true);
    expect(cryptoVerify(null, message, nodeKey(key.publicKey), malleated)).toBe(false);

    const verifier = new SignatureVerifier();
    const pending = verifier.precheck({ ...withSignatureBytes(base, malleated), nowMs: NOW });
    expect(() => verifier.verify(pending, base.body, AUDIENCE)).toThrow('S is not below the group order');
    expect(outcome(withSignatureBytes(base, malleated))).toBe('auth.signature_invalid');
  });

  it('S = L exactly is rejected', () => {
    const bytes = Uint8Array.from(good);
    writeLE(bytes, 32, ORDER_L);
    expect(outcome(withSignatureBytes(base, bytes))).toBe('auth.signature_invalid');
  });

  it.each([
    ['y = p', 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
    ['y = p + 1', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
    ['y = p + 1, sign bit', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'],
  ])('non-canonical R (%s) is rejected', (_name, hex) => {
    const bytes = Uint8Array.from(good);
    bytes.set(Buffer.from(hex, 'hex'), 0);
    const verifier = new SignatureVerifier();
    const pending = verifier.precheck({ ...withSignatureBytes(base, bytes), nowMs: NOW });
    expect(() => verifier.verify(pending, base.body, AUDIENCE)).toThrow(
      'R is not a canonical point encoding',
    );
    expect(outcome(withSignatureBytes(base, bytes))).toBe('auth.signature_invalid');
  });
});

describe('agentId', () => {
  it.each([
    ['31 bytes', Uint8Array.from([1, ...new Array<number>(30).fill(0x42)])],
    ['33 bytes', Uint8Array.from([1, ...new Array<number>(32).fill(0x42)])],
  ])('decoding to %s is auth.agent_invalid', (_name, bytes) => {
    const request = signed();
    const { signature, timestamp } = parts(request.authorization);
    const agentId = bs58.encode(bytes);
    expect(agentId.length).toBeGreaterThanOrEqual(32);
    expect(agentId.length).toBeLessThanOrEqual(44);
    expect(outcome({ ...request, authorization: `service ${agentId}:${signature}:${timestamp}` })).toBe(
      'auth.agent_invalid',
    );
  });

  it('a small-order key with the universal forged signature is auth.agent_invalid', () => {
    const identity = Uint8Array.from([1, ...new Array<number>(31).fill(0)]);
    const forged = Uint8Array.from([1, ...new Array<number>(63).fill(0)]);
    const request = signed();
    const authorization = `service ${bs58.encode(identity)}:${bs58.encode(forged)}:${parts(request.authorization).timestamp}`;
    // ZIP-215 verification accepts this for any message, as did node:crypto on OpenSSL 3.0 (Node 20);
    // the verifier refuses the key before any signature check, whatever OpenSSL it runs on.
    expect(verifyZip215(forged, new TextEncoder().encode('any message'), identity, { zip215: true })).toBe(
      true,
    );
    expect(outcome({ ...request, authorization })).toBe('auth.agent_invalid');
  });
});

describe('timestamp window with a fixed now', () => {
  const at = (offsetMs: number) => signed({ timestamp: formatTimestamp(new Date(NOW + offsetMs)) });

  it.each([
    ['now - 300 s', -300_000],
    ['now - 290 s', -290_000],
    ['now + 30 s', 30_000],
  ])('accepts %s', (_name, offset) => {
    expect(outcome(at(offset))).toBe('ok');
  });

  it.each([
    ['now - 301 s', -301_000],
    ['now - 300.001 s', -300_001],
    ['now + 31 s', 31_000],
    ['now + 30.001 s', 30_001],
  ])('rejects %s with auth.timestamp_out_of_window', (_name, offset) => {
    expect(outcome(at(offset))).toBe('auth.timestamp_out_of_window');
  });

  it('rejects a far-future timestamp (2099)', () => {
    expect(outcome(signed({ timestamp: '2099-01-01T00:00:00.000Z' }))).toBe('auth.timestamp_out_of_window');
  });

  it.each([
    '2025-01-01t12:00:00.000Z',
    '2025-01-01T12:00:00.000z',
    '2025-01-01T12:00:00.000',
    '2025-01-01T12:00:00.000+00:00',
    '2025-01-01T12:00:00.0000Z',
    '2025-01-01T12:00Z',
    '2025-01-01 12:00:00.000Z',
    '2025-02-30T12:00:00.000Z',
    '2023-02-29T12:00:00.000Z',
    '2025-01-01T24:00:00.000Z',
    '2024-12-31T23:59:60.000Z',
    '2025-13-01T12:00:00.000Z',
    '2025-00-10T12:00:00.000Z',
  ])('rejects timestamp %j with auth.malformed', (timestamp) => {
    expect(outcome(signed({ timestamp }))).toBe('auth.malformed');
  });
});

describe('CR / LF in any field is auth.malformed', () => {
  const base = signed();
  it.each<[string, Partial<WireRequest>]>([
    ['Authorization', { authorization: `${String(base.authorization)}\r\n` }],
    ['Authorization (inner LF)', { authorization: String(base.authorization).replace(':', '\n:') }],
    ['X-Nonce', { nonce: `${String(base.nonce)}\n` }],
    ['X-Nonce (CR)', { nonce: `\r${String(base.nonce)}` }],
    ['path', { rawUrl: '/events/e1\r\n/questions' }],
    ['query', { rawUrl: '/events/e1/questions?draft=false\n' }],
    ['method', { method: 'POST\r\n' }],
  ])('%s', (_name, change) => {
    expect(outcome({ ...base, ...change })).toBe('auth.malformed');
  });
});

describe('path checks reject signed-but-ambiguous targets with auth.malformed', () => {
  it.each([
    '/a/../b',
    '/a/./b',
    '/..',
    '//a',
    '/a//b',
    '/a%2Fb',
    '/a%2fb',
    '/%2e%2e/x',
    '/a%5Cb',
    '/a\\b',
    '/a#b',
  ])('%s', (target) => {
    expect(outcome(signed({ target }))).toBe('auth.malformed');
  });
});

describe('headers', () => {
  const base = signed();
  it.each<[string, Partial<WireRequest>]>([
    ['two Authorization values', { authorization: [String(base.authorization), String(base.authorization)] }],
    ['no Authorization', { authorization: undefined }],
    ['two X-Nonce values', { nonce: [String(base.nonce), String(base.nonce)] }],
    ['no X-Nonce', { nonce: undefined }],
    ['empty X-Nonce', { nonce: '' }],
    ['Bearer', { authorization: `Bearer ${key.agentId}` }],
    ['Service', { authorization: String(base.authorization).replace(/^service/, 'Service') }],
  ])('%s is auth.malformed', (_name, change) => {
    expect(outcome({ ...base, ...change })).toBe('auth.malformed');
  });

  it('accepts single-element arrays', () => {
    expect(
      outcome({ ...base, authorization: [String(base.authorization)], nonce: [String(base.nonce)] }),
    ).toBe('ok');
  });
});

describe('check order (docs/protocol/signing.md "Verification order")', () => {
  const identity = bs58.encode(Uint8Array.from([1, ...new Array<number>(31).fill(0)]));
  const forged = bs58.encode(Uint8Array.from([1, ...new Array<number>(63).fill(0)]));
  const nonce = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX';

  it('malformed target wins over a stale timestamp', () => {
    const request = signed({ target: '/a/../b', timestamp: '2020-01-01T00:00:00.000Z' });
    expect(outcome(request)).toBe('auth.malformed');
  });

  it('a stale timestamp wins over an invalid agent', () => {
    const authorization = `service ${identity}:${forged}:2020-01-01T00:00:00.000Z`;
    expect(outcome({ authorization, nonce, method: 'GET', rawUrl: '/', body: new Uint8Array() })).toBe(
      'auth.timestamp_out_of_window',
    );
  });

  it('an invalid agent is reported by precheck, before any body is read', () => {
    const authorization = `service ${identity}:${forged}:${formatTimestamp(new Date(NOW))}`;
    expect(() =>
      new SignatureVerifier().precheck({ authorization, nonce, method: 'GET', rawUrl: '/', nowMs: NOW }),
    ).toThrow(expect.objectContaining({ code: 'auth.agent_invalid' }) as unknown as Error);
  });
});

describe('key cache', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('runs the point checks once per agentId and never in phase 2', () => {
    const fromBytes = jest.spyOn(Point, 'fromBytes');
    const smallOrder = jest.spyOn(Point.prototype, 'isSmallOrder');
    const verifier = new SignatureVerifier();
    const fresh = generateAgentKey();

    const first = verifier.precheck({ ...signed({ key: fresh }), nowMs: NOW });
    expect(smallOrder).toHaveBeenCalledTimes(1);
    verifier.verify(first, signed({ key: fresh }).body, AUDIENCE);

    const request = signed({ key: fresh });
    const second = verifier.precheck({ ...request, nowMs: NOW });
    fromBytes.mockClear();
    smallOrder.mockClear();
    verifier.verify(second, request.body, AUDIENCE);
    expect(verifier.verifyMessage(fresh.agentId, 'x', 'bad')).toBe(false);
    expect(fromBytes).not.toHaveBeenCalled();
    expect(smallOrder).not.toHaveBeenCalled();
  });

  it('caches rejected keys too', () => {
    const smallOrder = jest.spyOn(Point.prototype, 'isSmallOrder');
    const verifier = new SignatureVerifier();
    const identity = bs58.encode(Uint8Array.from([1, ...new Array<number>(31).fill(0)]));
    const forged = bs58.encode(Uint8Array.from([1, ...new Array<number>(63).fill(0)]));
    const input = {
      authorization: `service ${identity}:${forged}:${formatTimestamp(new Date(NOW))}`,
      nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX',
      method: 'GET',
      rawUrl: '/',
      nowMs: NOW,
    };
    expect(() => verifier.precheck(input)).toThrow(AuthError);
    expect(() => verifier.precheck(input)).toThrow(AuthError);
    expect(smallOrder).toHaveBeenCalledTimes(1);
  });

  it('evicts least recently used keys beyond maxCachedKeys and still verifies after eviction', () => {
    const smallOrder = jest.spyOn(Point.prototype, 'isSmallOrder');
    const verifier = new SignatureVerifier({ maxCachedKeys: 1 });
    const a = signed({ key: generateAgentKey() });
    const b = signed({ key: generateAgentKey() });
    const pendingA = verifier.precheck({ ...a, nowMs: NOW });
    verifier.precheck({ ...b, nowMs: NOW });
    expect(smallOrder).toHaveBeenCalledTimes(2);
    expect(verifier.verify(pendingA, a.body, AUDIENCE).nonce).toBe(a.nonce);
    expect(smallOrder).toHaveBeenCalledTimes(3);
  });
});

describe('verifyMessage', () => {
  const verifier = new SignatureVerifier();
  const message = 'x402-ledger-v1\nledger:test';

  it('accepts a good signature and refuses everything else without throwing', () => {
    const good = signMessage(key, message);
    expect(verifier.verifyMessage(key.agentId, message, good)).toBe(true);
    expect(verifier.verifyMessage(key.agentId, Buffer.from(message), good)).toBe(true);
    expect(verifier.verifyMessage(key.agentId, `${message}!`, good)).toBe(false);
    expect(verifier.verifyMessage(otherKey.agentId, message, good)).toBe(false);
    expect(verifier.verifyMessage(key.agentId, message, signMessage(key, 'another message'))).toBe(false);
    expect(verifier.verifyMessage(key.agentId, message, '0OIl')).toBe(false);
    expect(verifier.verifyMessage(key.agentId, message, '')).toBe(false);
    expect(verifier.verifyMessage('not-base58!', message, good)).toBe(false);

    const malleated = bs58.decode(good);
    writeLE(malleated, 32, readLE(malleated, 32) + ORDER_L);
    expect(verifier.verifyMessage(key.agentId, message, bs58.encode(malleated))).toBe(false);

    const identity = bs58.encode(Uint8Array.from([1, ...new Array<number>(31).fill(0)]));
    const forged = bs58.encode(Uint8Array.from([1, ...new Array<number>(63).fill(0)]));
    expect(verifier.verifyMessage(identity, message, forged)).toBe(false);
  });
});

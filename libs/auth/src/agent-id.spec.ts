import { Point, verify as verifyZip215 } from '@noble/ed25519';
import { hexToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { agentIdFromPublicKey, decodeAgentId, isAcceptableAgentKey } from './agent-id.js';
import { AuthError } from './errors.js';
import { generateAgentKey } from './signer.js';
import { SignatureVerifier } from './verifier.js';

/** The 8 points of the torsion subgroup (order 1, 2, 4, 4, 8, 8, 8, 8), canonical encodings. */
const TORSION_POINTS = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
];

/** Encodings that decode (leniently) to a point but are not the canonical one. */
const NON_CANONICAL_POINTS = [
  ['y = p', 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['y = p, sign bit', 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'],
  ['y = p + 1', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['y = p + 1, sign bit', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'],
  // y = 3 and y = 18 are large-order points: only the encoding check rejects these two.
  ['y = p + 3', 'f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['y = p + 18 = 2^255 - 1', 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['identity, sign bit (-0)', '0100000000000000000000000000000000000000000000000000000000000080'],
  ['y = -1, sign bit (-0)', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'],
] as const;

describe('torsion point fixtures', () => {
  it('are 8 distinct points of order dividing 8', () => {
    const points = TORSION_POINTS.map((hex) => Point.fromHex(hex, true));
    for (const p of points) expect(p.multiply(8n, false).is0()).toBe(true);
    expect(new Set(points.map((p) => p.toHex())).size).toBe(8);
  });
});

describe('isAcceptableAgentKey', () => {
  it('accepts freshly generated keys', () => {
    for (let i = 0; i < 5; i++) expect(isAcceptableAgentKey(generateAgentKey().publicKey)).toBe(true);
  });

  it('accepts the RFC 8032 TEST 1 public key', () => {
    expect(
      isAcceptableAgentKey(hexToBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')),
    ).toBe(true);
  });

  it.each(TORSION_POINTS)('rejects small-order point %s', (hex) => {
    expect(isAcceptableAgentKey(hexToBytes(hex))).toBe(false);
  });

  it.each(NON_CANONICAL_POINTS)('rejects non-canonical encoding %s', (_name, hex) => {
    expect(isAcceptableAgentKey(hexToBytes(hex))).toBe(false);
  });

  it('accepts the canonical encodings of the large-order points y = 3 and y = 18', () => {
    expect(isAcceptableAgentKey(hexToBytes(`03${'00'.repeat(31)}`))).toBe(true);
    expect(isAcceptableAgentKey(hexToBytes(`12${'00'.repeat(31)}`))).toBe(true);
  });

  it('rejects 32 bytes that are not a curve point', () => {
    // y = 2 is not on edwards25519 (x^2 = 3 / (4d + 1) has no square root).
    const bytes = new Uint8Array(32);
    bytes[0] = 2;
    expect(() => Point.fromBytes(bytes, true)).toThrow();
    expect(isAcceptableAgentKey(bytes)).toBe(false);
  });

  it('accepts mixed-order keys, which are not small order', () => {
    // Mixed-order keys are not small order; signatures under them still need the private scalar.
    const mixed = Point.fromBytes(generateAgentKey().publicKey).add(
      Point.fromHex(TORSION_POINTS[4] ?? '', true),
    );
    expect(isAcceptableAgentKey(mixed.toBytes())).toBe(true);
  });

  it('rejects wrong lengths', () => {
    expect(isAcceptableAgentKey(new Uint8Array(31))).toBe(false);
    expect(isAcceptableAgentKey(new Uint8Array(33))).toBe(false);
  });
});

describe('the forged signature that makes the small-order check mandatory', () => {
  it('verifies for ANY message under ZIP-215 rules with the identity as public key', () => {
    const identity = hexToBytes(TORSION_POINTS[0] ?? '');
    // R = identity encoding, S = 0: [S]B = R + [k]A holds because every term is the identity.
    // ZIP-215 verification (noble's default) accepts it, and so did node:crypto on OpenSSL 3.0
    // (Node 20); OpenSSL 3.5 (Node 22.20+, 24) refuses it. The agentId check must not depend on
    // which library or OpenSSL a verifier happens to run: it refuses the key itself.
    const forged = new Uint8Array([...identity, ...new Uint8Array(32)]);
    for (const message of ['transfer everything', 'anything at all', '']) {
      expect(verifyZip215(forged, new TextEncoder().encode(message), identity, { zip215: true })).toBe(true);
    }
    expect(isAcceptableAgentKey(identity)).toBe(false);
  });
});

describe('precheck with an unacceptable agentId', () => {
  const nowMs = Date.UTC(2025, 0, 1, 12);
  const timestamp = '2025-01-01T12:00:00.000Z';
  // Shape-valid signature (R = identity, S = 0): the agent check must fire before any signature work.
  const forgedSignature = bs58.encode(Uint8Array.from([1, ...new Array<number>(63).fill(0)]));

  function precheckCode(publicKey: Uint8Array): string {
    try {
      new SignatureVerifier().precheck({
        authorization: `service ${bs58.encode(publicKey)}:${forgedSignature}:${timestamp}`,
        nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX',
        method: 'GET',
        rawUrl: '/directory/me',
        nowMs,
      });
      return 'ok';
    } catch (error) {
      if (error instanceof AuthError) return error.code;
      throw error;
    }
  }

  it.each(TORSION_POINTS)('rejects small-order key %s with auth.agent_invalid', (hex) => {
    expect(precheckCode(hexToBytes(hex))).toBe('auth.agent_invalid');
  });

  it.each(NON_CANONICAL_POINTS)('rejects non-canonical key (%s) with auth.agent_invalid', (_name, hex) => {
    expect(precheckCode(hexToBytes(hex))).toBe('auth.agent_invalid');
  });

  it('accepts a real key at this stage', () => {
    expect(precheckCode(generateAgentKey().publicKey)).toBe('ok');
  });
});

describe('decodeAgentId / agentIdFromPublicKey', () => {
  it('round-trips 32 bytes', () => {
    const key = generateAgentKey();
    expect(decodeAgentId(agentIdFromPublicKey(key.publicKey))).toEqual(key.publicKey);
    expect(agentIdFromPublicKey(key.publicKey)).toBe(key.agentId);
  });

  it.each([
    ['31 bytes', bs58.encode(new Uint8Array(31).fill(7))],
    ['33 bytes', bs58.encode(Uint8Array.from([1, ...new Array<number>(32).fill(7)]))],
    ['not base58', 'O0Il'],
    ['empty', ''],
  ])('rejects %s as auth.agent_invalid', (_name, agentId) => {
    expect(() => decodeAgentId(agentId)).toThrow(AuthError);
    try {
      decodeAgentId(agentId);
    } catch (error) {
      expect((error as AuthError).code).toBe('auth.agent_invalid');
    }
  });

  it('refuses to encode a key that is not 32 bytes', () => {
    expect(() => agentIdFromPublicKey(new Uint8Array(31))).toThrow(RangeError);
  });
});

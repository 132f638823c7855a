import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import bs58 from 'bs58';
import { NONCE_PATTERN } from './header.js';
import {
  agentKeyFromSecret,
  formatTimestamp,
  generateAgentKey,
  newNonce,
  signMessage,
  signRequest,
} from './signer.js';
import { EMPTY_BODY_SHA256, sha256Hex } from './signing-string.js';

function nodeKey(publicKey: Uint8Array) {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
}

describe('keys', () => {
  it('derives the same key from the same seed and copies the seed', () => {
    const key = generateAgentKey();
    const seed = Uint8Array.from(key.secretKey);
    const again = agentKeyFromSecret(seed);
    expect(again.agentId).toBe(key.agentId);
    expect(again.publicKey).toEqual(key.publicKey);
    seed.fill(0);
    expect(again.secretKey).toEqual(key.secretKey);
    expect(bs58.decode(key.agentId)).toEqual(key.publicKey);
    expect(key.publicKey).toHaveLength(32);
  });

  it('rejects seeds that are not 32 bytes', () => {
    expect(() => agentKeyFromSecret(new Uint8Array(31))).toThrow(RangeError);
    expect(() => agentKeyFromSecret(new Uint8Array(64))).toThrow(RangeError);
  });
});

describe('newNonce', () => {
  it('is 24 random bytes as 32 base64url characters', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const nonce = newNonce();
      expect(nonce).toHaveLength(32);
      expect(nonce).toMatch(NONCE_PATTERN);
      expect(Buffer.from(nonce, 'base64url')).toHaveLength(24);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(200);
  });
});

describe('formatTimestamp', () => {
  it('uses millisecond ISO form', () => {
    expect(formatTimestamp(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6)))).toBe('2025-01-02T03:04:05.006Z');
  });
});

describe('signRequest', () => {
  const key = generateAgentKey();

  it('upper-cases the method, splits at the first ? and hashes the body', () => {
    const signed = signRequest({
      key,
      audience: 'https://api.example.com',
      method: 'post',
      target: '/events/1/questions?a=1?b=2',
      body: '{"text":"hi"}',
      timestamp: '2025-01-01T12:00:00.000Z',
      nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX',
    });
    expect(signed.signingString.split('\n')).toEqual([
      'service-auth-v1',
      'https://api.example.com',
      'POST',
      '/events/1/questions',
      'a=1?b=2',
      key.agentId,
      '2025-01-01T12:00:00.000Z',
      'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX',
      sha256Hex('{"text":"hi"}'),
    ]);
    const [, signature] = /^service [^:]+:([^:]+):/.exec(signed.authorization) ?? [];
    expect(signed.authorization).toBe(`service ${key.agentId}:${signature}:2025-01-01T12:00:00.000Z`);
    expect(
      cryptoVerify(
        null,
        Buffer.from(signed.signingString),
        nodeKey(key.publicKey),
        bs58.decode(signature ?? ''),
      ),
    ).toBe(true);
  });

  it('fills in a fresh timestamp and nonce and an empty body digest', () => {
    const before = Date.now();
    const signed = signRequest({ key, audience: 'https://a', method: 'GET', target: '/' });
    expect(Date.parse(signed.timestamp)).toBeGreaterThanOrEqual(before - 1);
    expect(signed.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(signed.nonce).toMatch(NONCE_PATTERN);
    expect(signed.signingString.endsWith(`\n${signed.nonce}\n${EMPTY_BODY_SHA256}`)).toBe(true);
  });

  it('signs hostile targets verbatim so that the gateway can be shown to refuse them', () => {
    const signed = signRequest({
      key,
      audience: 'a',
      method: 'GET',
      target: '/a/../b',
      nonce: 'n',
      timestamp: 't',
    });
    expect(signed.signingString.split('\n')[3]).toBe('/a/../b');
  });
});

describe('signMessage', () => {
  it('signs strings as UTF-8, verifiable by node:crypto', () => {
    const key = generateAgentKey();
    const signature = bs58.decode(signMessage(key, 'x402-ledger-v1\né'));
    expect(signature).toHaveLength(64);
    expect(
      cryptoVerify(null, Buffer.from('x402-ledger-v1\né', 'utf8'), nodeKey(key.publicKey), signature),
    ).toBe(true);
    expect(signMessage(key, Buffer.from('abc'))).toBe(signMessage(key, 'abc'));
  });
});

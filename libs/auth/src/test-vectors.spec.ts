import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { agentKeyFromSecret, signRequest } from './signer.js';
import { buildSigningString, sha256Hex } from './signing-string.js';
import { SignatureVerifier } from './verifier.js';

interface VectorCase {
  name: string;
  method: string;
  target: string;
  path: string;
  query: string;
  body: string;
  bodySha256: string;
  signingString: string;
  signature: string;
  authorization: string;
  xNonce: string;
}

interface VectorFile {
  version: string;
  key: { secretKeyHex: string; publicKeyHex: string; agentId: string };
  audience: string;
  timestamp: string;
  nonce: string;
  cases: VectorCase[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../test-vectors/service-auth-v1.json', import.meta.url), 'utf8'),
) as VectorFile;

// PKCS#8 DER prefix for a raw 32-byte Ed25519 seed (RFC 8410): the independent, OpenSSL-backed path.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const nodePrivateKey = createPrivateKey({
  key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(vectors.key.secretKeyHex, 'hex')]),
  format: 'der',
  type: 'pkcs8',
});
const nodePublicKey = createPublicKey({
  key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(vectors.key.publicKeyHex, 'hex').toString('base64url') },
  format: 'jwk',
});
const agentKey = agentKeyFromSecret(hexToBytes(vectors.key.secretKeyHex));

describe('service-auth-v1 test vectors', () => {
  it('use the RFC 8032 section 7.1 TEST 1 key', () => {
    expect(vectors.version).toBe('service-auth-v1');
    expect(vectors.key.secretKeyHex).toBe('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    expect(vectors.key.publicKeyHex).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(Buffer.from(agentKey.publicKey).toString('hex')).toBe(vectors.key.publicKeyHex);
    expect(agentKey.agentId).toBe(vectors.key.agentId);
    expect(createPublicKey(nodePrivateKey).export({ format: 'jwk' }).x).toBe(
      Buffer.from(vectors.key.publicKeyHex, 'hex').toString('base64url'),
    );
    expect(Buffer.from(vectors.nonce, 'base64url')).toEqual(Buffer.from([...Array(24).keys()]));
    expect(vectors.cases.length).toBeGreaterThanOrEqual(3);
  });

  describe.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it('has a consistent signing string and digest', () => {
      expect(sha256Hex(c.body)).toBe(c.bodySha256);
      expect(
        buildSigningString({
          audience: vectors.audience,
          method: c.method,
          path: c.path,
          query: c.query,
          agentId: vectors.key.agentId,
          timestamp: vectors.timestamp,
          nonce: vectors.nonce,
          bodySha256: c.bodySha256,
        }),
      ).toBe(c.signingString);
      expect(c.authorization).toBe(`service ${vectors.key.agentId}:${c.signature}:${vectors.timestamp}`);
      expect(c.xNonce).toBe(vectors.nonce);
    });

    it('is reproduced by signRequest (node:crypto here, noble in a browser: signer.property.spec.ts)', () => {
      const signed = signRequest({
        key: agentKey,
        audience: vectors.audience,
        method: c.method,
        target: c.target,
        body: c.body,
        timestamp: vectors.timestamp,
        nonce: vectors.nonce,
      });
      expect(signed).toEqual({
        authorization: c.authorization,
        nonce: c.xNonce,
        timestamp: vectors.timestamp,
        signingString: c.signingString,
      });
    });

    it('is reproduced by node:crypto (OpenSSL)', () => {
      const signature = cryptoSign(null, Buffer.from(c.signingString, 'utf8'), nodePrivateKey);
      expect(bs58.encode(signature)).toBe(c.signature);
      expect(cryptoVerify(null, Buffer.from(c.signingString, 'utf8'), nodePublicKey, signature)).toBe(true);
    });

    it('is accepted by SignatureVerifier near the timestamp', () => {
      const verifier = new SignatureVerifier();
      const pending = verifier.precheck({
        authorization: c.authorization,
        nonce: c.xNonce,
        method: c.method,
        rawUrl: c.target,
        nowMs: Date.parse(vectors.timestamp) + 5_000,
      });
      expect(pending).toMatchObject({ path: c.path, query: c.query, method: c.method });
      expect(verifier.verify(pending, Buffer.from(c.body, 'utf8'), vectors.audience)).toEqual({
        agentId: vectors.key.agentId,
        nonce: vectors.nonce,
        timestamp: vectors.timestamp,
        timestampMs: Date.parse(vectors.timestamp),
      });
    });
  });
});

import { hashes, verify as nobleVerify } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { createPublicKey, verify } from 'node:crypto';
import { WebhookKeyError, WebhookSigner } from './webhook-signer.js';

// noble's synchronous verify needs its SHA-512.
hashes.sha512 = sha512;

// RFC 8032 section 7.1, TEST 1: a known seed and its public key.
const SEED_HEX = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const PUBLIC_HEX = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const SECRET = `whsk_${Buffer.from(SEED_HEX, 'hex').toString('base64')}`;

/** The receiver's side, straight from the spec: only the public key (`whpk_...`) is known. */
function verifiesWithPublicKey(
  publicKey: string,
  id: string,
  timestamp: string,
  body: Buffer,
  header: string,
) {
  const raw = Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
  return header
    .split(' ')
    .map((entry) => entry.split(','))
    .some(
      ([version, signature]) =>
        version === 'v1a' && verify(null, signed, key, Buffer.from(signature!, 'base64')),
    );
}

describe('WebhookSigner', () => {
  const signer = WebhookSigner.fromSecret(SECRET);

  it('reads the whsk_ seed and publishes the matching whpk_ public key with a fingerprint', () => {
    expect(signer.key).toEqual({
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      publicKey: `whpk_${Buffer.from(PUBLIC_HEX, 'hex').toString('base64')}`,
      algorithm: 'ed25519',
    });
  });

  it('signs <webhook-id>.<webhook-timestamp>.<body> over the exact bytes, as v1a', () => {
    // A body with non-ASCII text and the spacing a re-serialization would lose.
    const body = '{"type":"townhall.stage.posted", "data":{"body":"Grüße 👋"}}';
    const headers = signer.headers(
      '0b9a2f55-3c1e-4d7a-9a55-0f3f4f6c2a10',
      body,
      new Date('2030-01-01T00:00:00.900Z'),
    );
    expect(headers['webhook-id']).toBe('0b9a2f55-3c1e-4d7a-9a55-0f3f4f6c2a10');
    expect(headers['webhook-timestamp']).toBe('1893456000');
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const bytes = Buffer.from(body, 'utf8');
    const args = [headers['webhook-id'], headers['webhook-timestamp']] as const;
    expect(verifiesWithPublicKey(signer.key.publicKey, ...args, bytes, headers['webhook-signature'])).toBe(
      true,
    );
    // A second, independent implementation (noble) agrees.
    const signature = Buffer.from(headers['webhook-signature'].slice(4), 'base64');
    const message = Buffer.from(`${args[0]}.${args[1]}.${body}`, 'utf8');
    expect(nobleVerify(signature, message, Buffer.from(PUBLIC_HEX, 'hex'))).toBe(true);

    // One byte more (a re-serialized body), another timestamp or another id: no longer verifies.
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body)), 'utf8');
    expect(
      verifiesWithPublicKey(signer.key.publicKey, ...args, reserialized, headers['webhook-signature']),
    ).toBe(false);
    expect(
      verifiesWithPublicKey(signer.key.publicKey, args[0], '1893456001', bytes, headers['webhook-signature']),
    ).toBe(false);
    expect(
      verifiesWithPublicKey(signer.key.publicKey, 'other', args[1], bytes, headers['webhook-signature']),
    ).toBe(false);
  });

  it('is deterministic (Ed25519): the same message gives the same signature', () => {
    expect(signer.sign('id', 1, 'body')).toBe(WebhookSigner.fromSecret(SECRET).sign('id', 1, 'body'));
    expect(signer.sign('id', 1, 'body')).not.toBe(signer.sign('id', 2, 'body'));
  });

  it('generates a key whose secret reads back as the same key', () => {
    const { signer: generated, secret } = WebhookSigner.generate();
    expect(secret).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(WebhookSigner.fromSecret(secret).key).toEqual(generated.key);
    expect(generated.key.publicKey).not.toBe(signer.key.publicKey);
  });

  it('refuses a secret in another form', () => {
    for (const secret of [SEED_HEX, 'whsec_abc', 'whsk_', `whsk_${Buffer.alloc(31).toString('base64')}`])
      expect(() => WebhookSigner.fromSecret(secret)).toThrow(WebhookKeyError);
  });
});

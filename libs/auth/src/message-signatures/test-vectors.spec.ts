import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { jest } from '@jest/globals';
import { hexToBytes } from '@noble/hashes/utils.js';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { verify as webBotAuthVerify } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import { agentKeyFromSecret } from '../signer.js';
import { contentDigest } from './content-digest.js';
import { agentJwk, agentKeyThumbprint } from './jwk.js';
import { messageToSign, signMessageRequest, type MessageKeyid } from './signer.js';

interface VectorCase {
  name: string;
  method: string;
  target: string;
  body: string;
  keyid: MessageKeyid;
  tag?: 'web-bot-auth';
  contentDigest: string | null;
  signatureBase: string;
  signatureInput: string;
  signature: string;
}

interface VectorFile {
  version: string;
  key: {
    secretKeyHex: string;
    publicKeyHex: string;
    agentId: string;
    jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
    thumbprint: string;
  };
  audience: string;
  created: number;
  expires: number;
  nonce: string;
  label: string;
  cases: VectorCase[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/rfc9421.json', import.meta.url), 'utf8'),
) as VectorFile;

const agentKey = agentKeyFromSecret(hexToBytes(vectors.key.secretKeyHex));
const nodePrivateKey = createPrivateKey({
  key: { ...vectors.key.jwk, d: Buffer.from(vectors.key.secretKeyHex, 'hex').toString('base64url') },
  format: 'jwk',
});
const nodePublicKey = createPublicKey(nodePrivateKey);
const COMPONENTS = ['@method', '@authority', '@path', '@query'];

function keyidOf(c: VectorCase): string {
  return c.keyid === 'thumbprint' ? vectors.key.thumbprint : vectors.key.agentId;
}

/** The request of a case as the official packages take it: an absolute URL and its header fields. */
function wireRequest(c: VectorCase): { method: string; url: string; headers: Record<string, string> } {
  return {
    method: c.method,
    url: `${vectors.audience}${c.target}`,
    headers: {
      ...(c.contentDigest === null ? {} : { 'content-digest': c.contentDigest }),
      'signature-input': c.signatureInput,
      signature: c.signature,
    },
  };
}

describe('RFC 9421 test vectors', () => {
  it('use the key of the service-auth-v1 vectors (RFC 8032 section 7.1 TEST 1), and its thumbprint', () => {
    const serviceAuth = JSON.parse(
      readFileSync(new URL('../../test-vectors/service-auth-v1.json', import.meta.url), 'utf8'),
    ) as { key: Record<string, string>; timestamp: string };
    expect(vectors.version).toBe('rfc9421');
    expect({
      secretKeyHex: vectors.key.secretKeyHex,
      publicKeyHex: vectors.key.publicKeyHex,
      agentId: vectors.key.agentId,
    }).toEqual(serviceAuth.key);
    expect(agentKey.agentId).toBe(vectors.key.agentId);
    expect(agentJwk(vectors.key.agentId)).toEqual(vectors.key.jwk);
    expect(agentKeyThumbprint(vectors.key.agentId)).toBe(vectors.key.thumbprint);
    // The same instant as service-auth-v1's timestamp; 32 bytes 0x00..0x1f.
    expect(vectors.created * 1000).toBe(Date.parse(serviceAuth.timestamp));
    expect(vectors.expires).toBe(vectors.created + 60);
    expect(Buffer.from(vectors.nonce, 'base64url')).toEqual(Buffer.from([...Array(32).keys()]));
    expect(vectors.cases.map((c) => c.name)).toEqual([
      'GET /events?status=live&limit=10',
      'PUT /directory/me',
      'GET /events?status=live&limit=10, keyid = thumbprint, tag = web-bot-auth',
      'PUT /directory/me, keyid = thumbprint, tag = web-bot-auth',
    ]);
  });

  describe.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const input = {
      method: c.method,
      origin: vectors.audience,
      target: c.target,
      body: c.body,
      keyid: c.keyid,
      nowMs: vectors.created * 1000,
      nonce: vectors.nonce,
      ...(c.tag === undefined ? {} : { tag: c.tag }),
    };

    it("is what this library's signer makes, byte for byte", () => {
      expect(c.contentDigest).toBe(c.body === '' ? null : contentDigest(new TextEncoder().encode(c.body)));
      expect(messageToSign(vectors.key.agentId, input).signatureBase).toBe(c.signatureBase);
      expect(signMessageRequest({ key: agentKey, ...input })).toEqual({
        'Signature-Input': c.signatureInput,
        Signature: c.signature,
        ...(c.contentDigest === null ? {} : { 'Content-Digest': c.contentDigest }),
      });
    });

    it('verifies with node:crypto (OpenSSL) over the signature base', () => {
      const signature = Buffer.from(/^sig1=:([A-Za-z0-9+/=]+):$/.exec(c.signature)![1]!, 'base64');
      expect(signature).toHaveLength(64);
      expect(cryptoVerify(null, Buffer.from(c.signatureBase, 'utf8'), nodePublicKey, signature)).toBe(true);
    });

    it('is what http-message-signatures signs with the same parameters (Ed25519 is deterministic)', async () => {
      const request = wireRequest(c);
      const unsigned = {
        method: request.method,
        url: request.url,
        headers: (c.contentDigest === null ? {} : { 'content-digest': c.contentDigest }) as Record<
          string,
          string
        >,
      };
      const signed = await httpbis.signMessage(
        {
          key: createSigner(nodePrivateKey, 'ed25519', keyidOf(c)),
          name: vectors.label,
          fields: [...COMPONENTS, ...(c.contentDigest === null ? [] : ['content-digest'])],
          params: ['created', 'expires', 'nonce', 'keyid', 'alg', ...(c.tag === undefined ? [] : ['tag'])],
          paramValues: {
            created: new Date(vectors.created * 1000),
            expires: new Date(vectors.expires * 1000),
            nonce: vectors.nonce,
            ...(c.tag === undefined ? {} : { tag: c.tag }),
          },
        },
        unsigned,
      );
      // It names the fields `Signature` and `Signature-Input`: field names are case-insensitive.
      const fields = Object.fromEntries(
        Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      expect(fields).toEqual(request.headers);
    });

    it('verifies with http-message-signatures (httpbis)', async () => {
      const verified = await httpbis.verifyMessage(
        {
          keyLookup: async (params) =>
            params.keyid === keyidOf(c)
              ? { id: keyidOf(c), algs: ['ed25519'], verify: createVerifier(nodePublicKey, 'ed25519') }
              : null,
          // The vectors were made in 2025: a clock tolerance that reaches back to them.
          tolerance: Math.ceil(Date.now() / 1000) - vectors.created,
          requiredFields: COMPONENTS,
          requiredParams: ['created', 'expires', 'nonce', 'keyid', 'alg'],
        },
        wireRequest(c),
      );
      expect(verified).toBe(true);
    });
  });

  describe('with the clock at their time', () => {
    beforeEach(() => {
      // Only Date: the official verifiers read the clock, and WebCrypto's promises need no timers.
      jest.useFakeTimers({
        now: (vectors.created + 10) * 1000,
        doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'],
      });
    });
    afterEach(() => jest.useRealTimers());

    it("the Web Bot Auth case with a query verifies with web-bot-auth's verify and the key's JWK", async () => {
      const verifier = await verifierFromJWK(vectors.key.jwk);
      const tagged = vectors.cases.filter((c) => c.tag === 'web-bot-auth');
      expect(tagged.map((c) => c.target)).toEqual(['/events?status=live&limit=10', '/directory/me']);
      await expect(webBotAuthVerify(wireRequest(tagged[0]!), verifier)).resolves.toBeUndefined();
      // http-message-sig, under web-bot-auth, takes `@query` from URL.search: '' where there is no
      // query, and RFC 9421 section 2.2.7 (this library, the server, http-message-signatures) has '?'.
      // A client signing with web-bot-auth covers a request without a query just the same: it
      // signs '' and so verifies '' (the server, which derives '?', refuses such a signature).
      await expect(webBotAuthVerify(wireRequest(tagged[1]!), verifier)).rejects.toThrow('invalid signature');
    });
  });
});

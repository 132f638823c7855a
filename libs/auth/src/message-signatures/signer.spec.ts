import {
  createHash,
  createPrivateKey,
  createPublicKey,
  verify as cryptoVerify,
  webcrypto,
} from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { parseDictionary, type InnerList } from 'structured-headers';
import { signatureHeaders as webBotAuthSign, verify as webBotAuthVerify } from 'web-bot-auth';
import { Ed25519Signer, verifierFromJWK } from 'web-bot-auth/crypto';
import { base64UrlEncode } from '../base64url.js';
import { generateAgentKey } from '../signer.js';
import { agentJwk, agentKeyThumbprint } from './jwk.js';
import { MESSAGE_NONCE_PATTERN, type DerivedComponent } from './profile.js';
import { derivedComponentValue, signatureBase } from './signature-base.js';
import {
  messageSignatureHeaders,
  messageToSign,
  signMessageRequest,
  type MessageSignatureHeaders,
} from './signer.js';

const ORIGIN = 'http://127.0.0.1:3000';
const key = generateAgentKey();
const publicKey = createPublicKey({ key: { ...agentJwk(key.agentId) }, format: 'jwk' });
const BODY = '{"handle":"alice","displayName":"Alice ✓"}';

/** The signature's inner list and bytes, read back from the header fields as a verifier would. */
function parsed(headers: MessageSignatureHeaders): { input: InnerList; signature: Uint8Array } {
  const inputs = parseDictionary(headers['Signature-Input']);
  const signatures = parseDictionary(headers.Signature);
  expect([...inputs.keys()]).toEqual(['sig1']);
  expect([...signatures.keys()]).toEqual(['sig1']);
  const input = inputs.get('sig1') as InnerList;
  const bytes = signatures.get('sig1')![0];
  expect(bytes).toBeInstanceOf(ArrayBuffer);
  return { input, signature: new Uint8Array(bytes as ArrayBuffer) };
}

/** http-message-signatures' (httpbis) verdict on a request carrying `headers`. */
function httpbisVerify(method: string, target: string, headers: MessageSignatureHeaders) {
  return httpbis.verifyMessage(
    {
      keyLookup: async (params) =>
        params.keyid === key.agentId
          ? { id: key.agentId, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') }
          : null,
      requiredFields: ['@method', '@authority', '@path', '@query'],
      requiredParams: ['created', 'expires', 'nonce', 'keyid', 'alg'],
    },
    { method, url: `${ORIGIN}${target}`, headers: { ...headers } },
  );
}

describe('signMessageRequest (RFC 9421)', () => {
  it('covers the profile, with a Content-Digest for a body, in header fields that parse', () => {
    const nowMs = Date.UTC(2030, 0, 1, 12, 0, 0, 999);
    const headers = signMessageRequest({
      key,
      method: 'put',
      origin: ORIGIN,
      target: '/directory/me',
      body: BODY,
      nowMs,
    });
    const { input, signature } = parsed(headers);
    expect(input[0].map(([name, params]) => [name, params.size])).toEqual([
      ['@method', 0],
      ['@authority', 0],
      ['@path', 0],
      ['@query', 0],
      ['content-digest', 0],
    ]);
    const created = Math.floor(nowMs / 1000);
    expect([...input[1].keys()]).toEqual(['created', 'expires', 'nonce', 'keyid', 'alg']);
    expect(input[1].get('created')).toBe(created);
    expect(input[1].get('expires')).toBe(created + 60);
    expect(input[1].get('keyid')).toBe(key.agentId);
    expect(input[1].get('alg')).toBe('ed25519');
    expect(input[1].get('nonce')).toMatch(MESSAGE_NONCE_PATTERN);
    expect(input[1].get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signature).toHaveLength(64);
    expect(headers['Content-Digest']).toBe(
      `sha-256=:${createHash('sha256').update(BODY, 'utf8').digest('base64')}:`,
    );
    expect(headers['Signature-Input']).toMatch(
      new RegExp(
        `^sig1=\\("@method" "@authority" "@path" "@query" "content-digest"\\);created=${created};expires=${created + 60};nonce="[A-Za-z0-9_-]{43}";keyid="${key.agentId}";alg="ed25519"$`,
      ),
    );
    // A fresh nonce every time.
    const again = signMessageRequest({
      key,
      method: 'PUT',
      origin: ORIGIN,
      target: '/directory/me',
      body: BODY,
      nowMs,
    });
    expect(parsed(again).input[1].get('nonce')).not.toBe(input[1].get('nonce'));
  });

  it('leaves content-digest out without a body, and an empty body is none', () => {
    for (const body of [undefined, '', new Uint8Array(0)]) {
      const headers = signMessageRequest({
        key,
        method: 'GET',
        origin: ORIGIN,
        target: '/ledger/balance',
        ...(body === undefined ? {} : { body }),
      });
      expect(headers['Content-Digest']).toBeUndefined();
      expect(Object.keys(headers)).toEqual(['Signature-Input', 'Signature']);
      expect(parsed(headers).input[0].map(([name]) => name)).toEqual([
        '@method',
        '@authority',
        '@path',
        '@query',
      ]);
    }
  });

  it('signs the RFC 9421 signature base, which node:crypto verifies', () => {
    const nonce = base64UrlEncode(new Uint8Array(32).fill(7));
    const nowMs = 1_900_000_000_000;
    const target = '/events?status=live&limit=10';
    const headers = signMessageRequest({ key, method: 'GET', origin: ORIGIN, target, nowMs, nonce });
    const base = [
      '"@method": GET',
      '"@authority": 127.0.0.1:3000',
      '"@path": /events',
      '"@query": ?status=live&limit=10',
      `"@signature-params": ("@method" "@authority" "@path" "@query");created=1900000000;expires=1900000060;nonce="${nonce}";keyid="${key.agentId}";alg="ed25519"`,
    ].join('\n');
    expect(
      messageToSign(key.agentId, { method: 'GET', origin: ORIGIN, target, nowMs, nonce }).signatureBase,
    ).toBe(base);
    expect(cryptoVerify(null, Buffer.from(base, 'utf8'), publicKey, parsed(headers).signature)).toBe(true);

    // Without a query `@query` is `?`; the path and query go in raw, as sent.
    const raw = messageToSign(key.agentId, {
      method: 'POST',
      origin: 'https://API.example.com:443',
      target: '/a%2fb/c',
      body: 'x',
      nowMs,
      nonce,
    });
    expect(raw.signatureBase.split('\n').slice(0, 5)).toEqual([
      '"@method": POST',
      '"@authority": api.example.com',
      '"@path": /a%2fb/c',
      '"@query": ?',
      `"content-digest": sha-256=:${createHash('sha256').update('x').digest('base64')}:`,
    ]);
  });

  it('names the key by its JWK thumbprint when asked, and tags it for Web Bot Auth', () => {
    const headers = signMessageRequest({
      key,
      method: 'GET',
      origin: ORIGIN,
      target: '/me/tickets',
      keyid: 'thumbprint',
      tag: 'web-bot-auth',
    });
    const { input } = parsed(headers);
    expect(input[1].get('keyid')).toBe(agentKeyThumbprint(key.agentId));
    expect(input[1].get('tag')).toBe('web-bot-auth');
    expect(headers['Signature-Input']).toMatch(/;alg="ed25519";tag="web-bot-auth"$/);
  });

  it('keeps the lifetime within what the server accepts', () => {
    const input = { key, method: 'GET', origin: ORIGIN, target: '/' };
    expect(
      parsed(signMessageRequest({ ...input, lifetimeSeconds: 300, nowMs: 0 })).input[1].get('expires'),
    ).toBe(300);
    for (const lifetimeSeconds of [0, 301, 1.5, -1])
      expect(() => signMessageRequest({ ...input, lifetimeSeconds })).toThrow(RangeError);
  });

  it('in two halves gives the same headers, signed by a WebCrypto key that cannot be exported', async () => {
    const privateKey = await webcrypto.subtle.importKey(
      'pkcs8',
      createPrivateKey({
        key: { ...agentJwk(key.agentId), d: base64UrlEncode(key.secretKey) },
        format: 'jwk',
      }).export({ type: 'pkcs8', format: 'der' }),
      { name: 'Ed25519' },
      false,
      ['sign'],
    );
    const input = {
      method: 'PUT',
      origin: ORIGIN,
      target: '/directory/me?x=1',
      body: BODY,
      nowMs: 1_900_000_000_000,
      nonce: 'A'.repeat(43),
    };
    const message = messageToSign(key.agentId, input);
    const signature = new Uint8Array(
      await webcrypto.subtle.sign(
        { name: 'Ed25519' },
        privateKey,
        new TextEncoder().encode(message.signatureBase),
      ),
    );
    expect(messageSignatureHeaders(message, signature)).toEqual(signMessageRequest({ key, ...input }));
  });

  it("is accepted by http-message-signatures' verifier (httpbis) on the same request", async () => {
    const withBody = signMessageRequest({
      key,
      method: 'PUT',
      origin: ORIGIN,
      target: '/directory/me',
      body: BODY,
    });
    expect(await httpbisVerify('PUT', '/directory/me', withBody)).toBe(true);
    const withQuery = signMessageRequest({
      key,
      method: 'GET',
      origin: ORIGIN,
      target: '/events?status=live',
    });
    expect(await httpbisVerify('GET', '/events?status=live', withQuery)).toBe(true);
    // Its `@query` of no query is `?` as well.
    const bare = signMessageRequest({ key, method: 'DELETE', origin: ORIGIN, target: '/events/e1/rsvp' });
    expect(await httpbisVerify('DELETE', '/events/e1/rsvp', bare)).toBe(true);
    // And another request does not verify under it.
    expect(await httpbisVerify('GET', '/events?status=ended', withQuery)).toBe(false);
  });

  it("is accepted by web-bot-auth's verify when tagged, with a query (it derives an absent query as '')", async () => {
    const verifyKey = await verifierFromJWK(agentJwk(key.agentId));
    const target = '/events?status=live&limit=10';
    const onTheWire = (headers: MessageSignatureHeaders, path = target) => ({
      method: 'GET',
      url: `${ORIGIN}${path}`,
      headers: { ...headers },
    });
    const tagged = signMessageRequest({
      key,
      method: 'GET',
      origin: ORIGIN,
      target,
      keyid: 'thumbprint',
      tag: 'web-bot-auth',
    });
    await expect(webBotAuthVerify(onTheWire(tagged), verifyKey)).resolves.toBeUndefined();
    // Untagged, web-bot-auth refuses it: it wants its tag (Townhall takes both).
    const untagged = signMessageRequest({ key, method: 'GET', origin: ORIGIN, target });
    await expect(webBotAuthVerify(onTheWire(untagged), verifyKey)).rejects.toThrow(/tag/);
    // Without a query its http-message-sig takes `@query` from URL.search, '' where RFC 9421
    // section 2.2.7 (this signer, the server, http-message-signatures) has '?': the same signature
    // fails there, and only there.
    const noQuery = signMessageRequest({
      key,
      method: 'GET',
      origin: ORIGIN,
      target: '/events',
      tag: 'web-bot-auth',
    });
    await expect(webBotAuthVerify(onTheWire(noQuery, '/events'), verifyKey)).rejects.toThrow(
      'invalid signature',
    );
    expect(await httpbisVerify('GET', '/events', noQuery)).toBe(true);
  });

  it('is matched by a web-bot-auth client covering @target-uri, with or without a query (as the docs advise)', async () => {
    const signer = await Ed25519Signer.fromJWK({
      ...agentJwk(key.agentId),
      d: base64UrlEncode(key.secretKey),
    });
    expect(signer.keyid).toBe(agentKeyThumbprint(key.agentId));
    for (const [method, target, body] of [
      ['GET', '/events', ''],
      ['GET', '/events?status=live&limit=10', ''],
      ['PUT', '/directory/me', BODY],
    ] as const) {
      const digest: Record<string, string> =
        body === ''
          ? {}
          : {
              'content-digest': signMessageRequest({ key, method, origin: ORIGIN, target, body })[
                'Content-Digest'
              ]!,
            };
      const created = new Date();
      const headers = await webBotAuthSign({ method, url: `${ORIGIN}${target}`, headers: digest }, signer, {
        created,
        expires: new Date(created.getTime() + 60_000),
        components: ['@method', '@target-uri', ...Object.keys(digest)],
      });
      // The base as this profile derives it from the parsed Signature-Input, as the server does.
      const { input, signature } = parsed(headers);
      expect(input[1].get('nonce')).toMatch(MESSAGE_NONCE_PATTERN);
      const q = target.indexOf('?');
      const request = {
        method,
        origin: ORIGIN,
        path: q === -1 ? target : target.slice(0, q),
        query: q === -1 ? '' : target.slice(q + 1),
      };
      const base = signatureBase(input, (name) =>
        name.startsWith('@')
          ? derivedComponentValue(name as DerivedComponent, request)
          : digest['content-digest']!,
      );
      expect(cryptoVerify(null, Buffer.from(base, 'utf8'), publicKey, signature)).toBe(true);
    }
  });
});

import 'reflect-metadata';
import { createHash, createPublicKey, type webcrypto } from 'node:crypto';
import {
  agentJwk,
  generateAgentKey,
  SignatureVerifier,
  signMessageRequest,
  signRequest,
  type AgentKey,
  type MessageSignatureHeaders,
  type SignedHeaders,
  type SignMessageRequestInput,
  type SignRequestInput,
} from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import type { ServiceClient } from '@townhall/platform';
import { encodeKeyFile } from '@townhall/sdk/key-file';
import bs58 from 'bs58';
import { createVerifier, httpbis } from 'http-message-signatures';
import { GatewayModule } from '../../gateway.module.js';
import { CachedReadiness } from '../../health/cached-readiness.js';
import { browserProgram } from '../browser-programs.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../descriptions/openapi-document.js';
import { documentedRoutes } from '../site.js';

const AUDIENCE = 'https://townhall.test';

interface SwaggerRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  loadSpec?: boolean;
}

/** What docs.js (site/browser/signing.ts) puts on `window.TownhallSigning`. */
interface TownhallSigning {
  plugin(): { afterLoad(system: unknown): void; wrapComponents: Record<string, unknown> };
  intercept(request: SwaggerRequest): Promise<SwaggerRequest>;
  setKey(text: string): Promise<string>;
  forgetKey(): void;
  setScheme(scheme: 'service-auth-v1' | 'rfc9421'): void;
  importAgentKey(text: string): Promise<{ agentId: string; privateKey: webcrypto.CryptoKey }>;
  signRequest(
    key: { agentId: string; privateKey: webcrypto.CryptoKey },
    input: Omit<SignRequestInput, 'key'>,
  ): Promise<SignedHeaders>;
  signMessageRequest(
    key: { agentId: string; privateKey: webcrypto.CryptoKey },
    input: Omit<SignMessageRequestInput, 'key'>,
  ): Promise<MessageSignatureHeaders>;
  operationOf(document: unknown, method: string, path: string): { operationId: string } | undefined;
}

const noServices: ServiceClient = {
  send: async () => {
    throw new DomainError('service.unavailable', 'no services in this test');
  },
  close: async () => {},
};

/** Runs the script as the page does, with this process's WebCrypto, on a window of its own. */
function loadScript(document: OpenApiDocument): TownhallSigning {
  const window: {
    location: { href: string };
    TownhallSigning?: TownhallSigning;
    SwaggerUIBundle: (options: unknown) => unknown;
  } = {
    location: { href: `${AUDIENCE}/docs` },
    SwaggerUIBundle: () => ({}),
  };
  new Function('window', browserProgram('docs'))(window);
  const signing = window.TownhallSigning as TownhallSigning;
  signing
    .plugin()
    .afterLoad({ specSelectors: { specJson: () => ({ toJS: () => structuredClone(document) }) } });
  return signing;
}

/** Every form the seed could take on the wire. */
function seedForms(key: AgentKey): string[] {
  const seed = Buffer.from(key.secretKey);
  return [seed.toString('base64url'), seed.toString('base64'), seed.toString('hex'), bs58.encode(seed)];
}

describe('the signing of /docs/docs.js', () => {
  const document = buildOpenApiDocument({
    routes: documentedRoutes(GatewayModule.register(noServices, new CachedReadiness({})).controllers ?? []),
    serverUrl: AUDIENCE,
    version: '0.0.0',
  });
  let signing: TownhallSigning;
  let key: AgentKey;
  beforeEach(() => {
    signing = loadScript(document);
    key = generateAgentKey();
  });

  it('takes the key file, its secretKey or the seed in hex, into a key that cannot be exported', async () => {
    // A secretKey that could also read as an agentId is refused (below): take one that cannot.
    while (!/[0OIl_-]/.test(Buffer.from(key.secretKey).toString('base64url'))) key = generateAgentKey();
    const seed = Buffer.from(key.secretKey);
    for (const text of [
      encodeKeyFile(key),
      seed.toString('base64url'),
      seed.toString('hex'),
      ` ${seed.toString('hex')}\n`,
    ]) {
      const imported = await signing.importAgentKey(text);
      expect(imported.agentId).toBe(key.agentId);
      expect(imported.privateKey.extractable).toBe(false);
      expect(imported.privateKey.algorithm.name).toBe('Ed25519');
    }
  });

  it('refuses what is not a key, and a key file whose secretKey is another agent’s', async () => {
    const other = generateAgentKey();
    const forged = JSON.stringify({ ...JSON.parse(encodeKeyFile(key)), agentId: other.agentId });
    await expect(signing.importAgentKey(forged)).rejects.toThrow(`not the key of ${other.agentId}`);
    await expect(signing.importAgentKey('{"kind":"something-else"}')).rejects.toThrow(
      'not a townhall agent key',
    );
    await expect(signing.importAgentKey(key.agentId)).rejects.toThrow('Not a key');
    await expect(signing.importAgentKey('')).rejects.toThrow('Not a key');
    // About one agentId in 18 is 43 characters, the length of a base64url secretKey; such a
    // paste must never become a key (anyone who knows the agentId could derive it).
    let short = generateAgentKey();
    for (let i = 0; i < 5_000 && short.agentId.length !== 43; i++) short = generateAgentKey();
    expect(short.agentId).toHaveLength(43);
    await expect(signing.importAgentKey(short.agentId)).rejects.toThrow('reads as an agentId');
    await expect(signing.importAgentKey('B'.repeat(43))).rejects.toThrow('reads as an agentId');
  });

  it('signs exactly as signRequest in @townhall/auth does', async () => {
    const imported = await signing.importAgentKey(encodeKeyFile(key));
    const timestamp = '2030-01-01T18:00:00.123Z';
    const nonce = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    for (const [method, target, body] of [
      ['PUT', '/directory/me', '{"handle":"alice"}'],
      ['GET', '/me/tickets?limit=5&cursor=a%20b', ''],
      ['POST', '/events/abc/stage', '{"body":"héllo ✓"}'],
    ] as const) {
      const expected = signRequest({ key, audience: AUDIENCE, method, target, body, timestamp, nonce });
      const actual = await signing.signRequest(imported, {
        audience: AUDIENCE,
        method,
        target,
        body: new TextEncoder().encode(body),
        timestamp,
        nonce,
      });
      expect(actual).toEqual(expected);
    }
  });

  it('signs RFC 9421 exactly as signMessageRequest in @townhall/auth does', async () => {
    const imported = await signing.importAgentKey(encodeKeyFile(key));
    const nowMs = Date.UTC(2030, 0, 1, 18, 0, 0, 123);
    const nonce = 'A'.repeat(43);
    for (const [method, target, body, keyid] of [
      ['PUT', '/directory/me', '{"handle":"alice"}', 'agentId'],
      ['GET', '/me/tickets?limit=5&cursor=a%20b', '', 'thumbprint'],
      ['POST', '/events/abc/stage', '{"body":"héllo ✓"}', 'agentId'],
    ] as const) {
      const input = { origin: AUDIENCE, method, target, keyid, nowMs, nonce };
      const expected = signMessageRequest({ key, ...input, body });
      const actual = await signing.signMessageRequest(imported, {
        ...input,
        body: new TextEncoder().encode(body),
      });
      expect(actual).toEqual(expected);
    }
  });

  it('with RFC 9421 chosen, signs signed operations with Signature-Input, Signature and Content-Digest', async () => {
    await signing.setKey(encodeKeyFile(key));
    signing.setScheme('rfc9421');
    const publicKey = createPublicKey({ key: { ...agentJwk(key.agentId) }, format: 'jwk' });
    const verify = (request: SwaggerRequest) =>
      httpbis.verifyMessage(
        {
          keyLookup: async ({ keyid }) =>
            keyid === key.agentId
              ? { id: keyid, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') }
              : null,
          requiredFields: ['@method', '@authority', '@path', '@query'],
        },
        { method: request.method, url: request.url, headers: request.headers },
      );
    const put = await signing.intercept({
      url: `${AUDIENCE}/directory/me`,
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: { handle: 'alice_docs' },
    });
    expect(put.body).toBe('{"handle":"alice_docs"}');
    expect(Object.keys(put.headers)).toEqual([
      'Content-Type',
      'Signature-Input',
      'Signature',
      'Content-Digest',
    ]);
    expect(put.headers['Signature-Input']).toMatch(
      new RegExp(
        `^sig1=\\("@method" "@authority" "@path" "@query" "content-digest"\\);.*;keyid="${key.agentId}";alg="ed25519"$`,
      ),
    );
    expect(put.headers['Content-Digest']).toBe(
      `sha-256=:${createHash('sha256').update('{"handle":"alice_docs"}').digest('base64')}:`,
    );
    expect(await verify(put)).toBe(true);

    // A signed read of the API's: no body, no Content-Digest.
    const read = await signing.intercept({ url: `${AUDIENCE}/ledger/balance`, method: 'GET', headers: {} });
    expect(Object.keys(read.headers)).toEqual(['Signature-Input', 'Signature']);
    expect(await verify(read)).toBe(true);
    // Public operations go out as they are; back on service-auth-v1, Authorization again.
    const events = await signing.intercept({ url: `${AUDIENCE}/events?limit=5`, method: 'GET', headers: {} });
    expect(events.headers).toEqual({});
    signing.setScheme('service-auth-v1');
    const again = await signing.intercept({ url: `${AUDIENCE}/ledger/balance`, method: 'GET', headers: {} });
    expect(Object.keys(again.headers)).toEqual(['Authorization', 'X-Nonce']);
    expect(() => signing.setScheme('hmac' as 'rfc9421')).toThrow('Not a signature scheme');
  });

  it('signs requests to signed operations so that the verifier accepts them, and only those', async () => {
    const verifier = new SignatureVerifier();
    expect(await signing.setKey(encodeKeyFile(key))).toBe(key.agentId);
    const put: SwaggerRequest = {
      url: `${AUDIENCE}/directory/me`,
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: '{"handle":"alice_docs"}',
    };
    const signed = await signing.intercept(put);
    expect(signed.headers['Content-Type']).toBe('application/json');
    const pending = verifier.precheck({
      authorization: signed.headers['Authorization'],
      nonce: signed.headers['X-Nonce'],
      method: 'PUT',
      rawUrl: '/directory/me',
      nowMs: Date.now(),
    });
    const body = new TextEncoder().encode(String(signed.body));
    expect(verifier.verify(pending, body, AUDIENCE).agentId).toBe(key.agentId);

    // An object body is sent as the JSON that was signed.
    const object = await signing.intercept({
      url: `${AUDIENCE}/events/e1/stage`,
      method: 'POST',
      headers: {},
      body: { body: 'hi' },
    });
    expect(object.body).toBe('{"body":"hi"}');
    expect(
      verifier.verify(
        verifier.precheck({
          authorization: object.headers['Authorization'],
          nonce: object.headers['X-Nonce'],
          method: 'POST',
          rawUrl: '/events/e1/stage',
          nowMs: Date.now(),
        }),
        new TextEncoder().encode('{"body":"hi"}'),
        AUDIENCE,
      ).agentId,
    ).toBe(key.agentId);

    // Public operations, the document itself and other origins go out as they are.
    for (const request of [
      { url: `${AUDIENCE}/events?limit=5`, method: 'GET', headers: {} },
      { url: `${AUDIENCE}/events/series/abc`, method: 'GET', headers: {} },
      { url: `${AUDIENCE}/openapi.json`, method: 'GET', headers: {}, loadSpec: true },
      { url: 'https://elsewhere.test/directory/me', method: 'PUT', headers: {}, body: '{}' },
    ])
      expect((await signing.intercept({ ...request })).headers['Authorization']).toBeUndefined();

    // Forgotten: nothing is signed any more.
    signing.forgetKey();
    expect((await signing.intercept({ ...put, headers: {} })).headers['Authorization']).toBeUndefined();

    // No request carries the seed, in any encoding.
    const sent = JSON.stringify([signed, object]);
    for (const form of seedForms(key)) expect(sent).not.toContain(form);
  });

  it('finds operations as Fastify routes them: a static segment before a parameter', () => {
    expect(signing.operationOf(document, 'GET', '/events/series/rsvps')?.operationId).toBe(
      document.paths['/events/series/{id}']?.['get']?.operationId,
    );
    expect(signing.operationOf(document, 'GET', '/events/e1/rsvps')?.operationId).toBe(
      document.paths['/events/{id}/rsvps']?.['get']?.operationId,
    );
    expect(signing.operationOf(document, 'GET', '/directory/handles/alice')?.operationId).toBe(
      document.paths['/directory/handles/{handle}']?.['get']?.operationId,
    );
    expect(signing.operationOf(document, 'DELETE', '/nowhere')).toBeUndefined();
  });
});

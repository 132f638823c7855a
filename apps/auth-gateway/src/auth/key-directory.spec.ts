import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { AuthError, jwkThumbprint, KEY_DIRECTORY_PATH } from '@townhall/auth/portable';
import type { Resolver } from '@townhall/platform/outbound';
import {
  KEY_DIRECTORY_MEDIA_TYPE,
  KeyDirectories,
  keyDirectoriesOf,
  signatureAgentOrigin,
  ttlOf,
  type KeyDirectoryOptions,
} from './key-directory.js';

/** A fresh Ed25519 public key: its 32 bytes, its JWK `x` and its thumbprint. */
function newKey() {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const x = jwk.x!;
  return { x, bytes: new Uint8Array(Buffer.from(x, 'base64url')), thumbprint: jwkThumbprint(x) };
}

const directoryOf = (...xs: string[]) =>
  JSON.stringify({ keys: xs.map((x) => ({ kty: 'OKP', crv: 'Ed25519', x })) });

describe('KeyDirectories', () => {
  let server: Server;
  let port: number;
  /** Requests the server saw: their Host and path. */
  const requests: Array<{ host: string | undefined; url: string | undefined; accept: string | undefined }> =
    [];
  /** What each host's directory answers (by the Host header's name). */
  const answers = new Map<string, (response: ServerResponse, request: IncomingMessage) => void>();
  const debug: Array<[Record<string, unknown>, string]> = [];
  const warnings: unknown[] = [];
  const logger = {
    debug: (fields: Record<string, unknown>, message: string) => void debug.push([fields, message]),
    warn: (...args: unknown[]) => void warnings.push(args),
  } as unknown as KeyDirectoryOptions['logger'];

  /** Every `<name>.test` resolves to 127.0.0.1, so each name is an origin of its own on one server. */
  const resolve: Resolver = async (hostname) => {
    if (!hostname.endsWith('.test')) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return [{ address: '127.0.0.1', family: 4 }];
  };
  const open = { allowPrivate: true, httpsOnly: false };
  const directories = (options: Partial<KeyDirectoryOptions> = {}) =>
    new KeyDirectories({ policy: open, logger, resolve, ...options });
  const agent = (name: string) => `"http://${name}.test:${port}"`;
  const served = (name: string) => requests.filter(({ host }) => host === `${name}.test:${port}`).length;
  const serve = (
    name: string,
    body: string | Buffer,
    headers: Record<string, string> = { 'content-type': KEY_DIRECTORY_MEDIA_TYPE },
  ) => answers.set(name, (response) => response.writeHead(200, headers).end(body));

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push({ host: request.headers.host, url: request.url, accept: request.headers.accept });
      const name = request.headers.host?.split(':')[0]?.replace(/\.test$/, '') ?? '';
      const answer = answers.get(name);
      if (answer) answer(response, request);
      else response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  beforeEach(() => {
    debug.length = 0;
  });

  it("finds a key by its thumbprint in the directory of the Signature-Agent's origin", async () => {
    const [one, two] = [newKey(), newKey()];
    serve('found', directoryOf(one.x, two.x));
    const keys = directories();
    // Only the origin counts: a path in the header is not where the directory is.
    expect(await keys.keyFor(`"http://found.test:${port}/some/path?q=1"`, two.thumbprint)).toEqual(two.bytes);
    expect(requests.at(-1)).toEqual({
      host: `found.test:${port}`,
      url: KEY_DIRECTORY_PATH,
      accept: expect.stringContaining(KEY_DIRECTORY_MEDIA_TYPE),
    });
    // A dictionary whose first member is the string (newer drafts), kept: no request.
    expect(await keys.keyFor(`sig1=${agent('found')}, sig2="https://other.example"`, one.thumbprint)).toEqual(
      one.bytes,
    );
    expect(served('found')).toBe(1);
  });

  it('answers undefined for a thumbprint the directory does not list, without a new fetch', async () => {
    const known = newKey();
    serve('unknown', directoryOf(known.x));
    const keys = directories();
    expect(await keys.keyFor(agent('unknown'), newKey().thumbprint)).toBeUndefined();
    expect(await keys.keyFor(agent('unknown'), known.thumbprint)).toEqual(known.bytes);
    expect(served('unknown')).toBe(1);
    expect(debug.map(([, message]) => message)).toContain('Signature-Agent: no key with that thumbprint');
  });

  it('skips keys that are not Ed25519, or whose x is not the canonical base64url of 32 bytes', async () => {
    const good = newKey();
    const short = Buffer.alloc(31, 1).toString('base64url');
    // 43 characters whose last one carries non-zero trailing bits: a second spelling of a key.
    const uncanonical = good.x.slice(0, 42) + (good.x.endsWith('B') ? 'C' : 'B');
    const withNul = good.x.slice(0, 42) + '\u0000';
    serve(
      'mixed',
      JSON.stringify({
        keys: [
          { kty: 'RSA', n: 'AQAB', e: 'AQAB' },
          { kty: 'OKP', crv: 'X25519', x: newKey().x },
          { kty: 'OKP', crv: 'Ed25519', x: short },
          { kty: 'OKP', crv: 'Ed25519', x: uncanonical },
          { kty: 'OKP', crv: 'Ed25519', x: withNul },
          { kty: 'OKP', crv: 'Ed25519' },
          { kty: 'OKP', crv: 'Ed25519', x: good.x, kid: 'k1', use: 'sig', nbf: 1 },
        ],
        purpose: 'rag',
      }),
    );
    const keys = directories();
    expect(await keys.keyFor(agent('mixed'), good.thumbprint)).toEqual(good.bytes);
    for (const x of [short, uncanonical, withNul])
      expect(await keys.keyFor(agent('mixed'), jwkThumbprint(x))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"keys": [', /not JSON/],
    ['a NUL byte in the JSON', Buffer.from(`{"keys": []}\u0000`), /not JSON/],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /not JSON/],
    ['keys not an array', '{"keys": {"kty": "OKP"}}', /not a key directory \(keys:/],
    ['no keys', '{"jwks": []}', /not a key directory \(keys:/],
    ['a key not an object', '{"keys": ["OKP"]}', /not a key directory \(keys\.0:/],
    ['a kty not a string', '{"keys": [{"kty": 1}]}', /not a key directory \(keys\.0\.kty:/],
    ['an x not a string', '{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": 7}]}', /keys\.0\.x:/],
    ['more than 100 keys', JSON.stringify({ keys: new Array(101).fill({ kty: 'OKP' }) }), /keys:/],
    ['an array', '[]', /not a key directory/],
    ['over 64 KiB', JSON.stringify({ keys: [], pad: 'x'.repeat(70_000) }), /body over 65536 bytes/],
  ])('answers undefined, and throws nothing, for a directory that is %s', async (_case, body, reason) => {
    const name = `bad-${Math.random().toString(36).slice(2)}`;
    serve(name, body);
    expect(await directories().keyFor(agent(name), newKey().thumbprint)).toBeUndefined();
    expect(debug).toContainEqual([
      expect.objectContaining({ reason: expect.stringMatching(reason) }),
      'Signature-Agent: no key directory',
    ]);
    expect(warnings).toEqual([]);
  });

  it('refuses a response that is not a key directory by its Content-Type, a redirect and an error status', async () => {
    const key = newKey();
    serve('html', directoryOf(key.x), { 'content-type': 'text/html' });
    answers.set('moved', (response) =>
      response.writeHead(301, { location: `http://found.test:${port}${KEY_DIRECTORY_PATH}` }).end(),
    );
    answers.set('broken', (response) => response.writeHead(500).end());
    const keys = directories();
    for (const name of ['html', 'moved', 'broken'])
      expect(await keys.keyFor(agent(name), key.thumbprint)).toBeUndefined();
    expect(debug.map(([fields]) => fields['reason'])).toEqual([
      'not a key directory (Content-Type text/html)',
      'HTTP 301',
      'HTTP 500',
    ]);
  });

  it('keeps a failed fetch: no origin is fetched again before failureTtlMs', async () => {
    const key = newKey();
    answers.set('flaky', (response) => response.writeHead(503).end());
    const keys = directories({ failureTtlMs: 300 });
    expect(await keys.keyFor(agent('flaky'), key.thumbprint)).toBeUndefined();
    serve('flaky', directoryOf(key.x));
    expect(await keys.keyFor(agent('flaky'), key.thumbprint)).toBeUndefined();
    expect(served('flaky')).toBe(1);
    await new Promise((done) => setTimeout(done, 350));
    expect(await keys.keyFor(agent('flaky'), key.thumbprint)).toEqual(key.bytes);
    expect(served('flaky')).toBe(2);
  });

  it('lets concurrent lookups of one origin share one fetch', async () => {
    const key = newKey();
    answers.set('slow', (response) =>
      setTimeout(
        () => response.writeHead(200, { 'content-type': 'application/json' }).end(directoryOf(key.x)),
        100,
      ),
    );
    const keys = directories();
    const found = await Promise.all(
      Array.from({ length: 20 }, () => keys.keyFor(agent('slow'), key.thumbprint)),
    );
    expect(found).toEqual(new Array(20).fill(key.bytes));
    expect(served('slow')).toBe(1);
  });

  it('gives up on a directory that does not answer within the timeout', async () => {
    answers.set('silent', () => undefined);
    const started = Date.now();
    expect(
      await directories({ timeoutMs: 200 }).keyFor(agent('silent'), newKey().thumbprint),
    ).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(debug.at(-1)?.[0]['reason']).toBe('no whole answer within 200 ms');
  });

  it('fetches again for an unknown thumbprint once the directory is minTtlMs old (a key added since)', async () => {
    const [first, added] = [newKey(), newKey()];
    serve('rotating', directoryOf(first.x));
    const keys = directories({ minTtlMs: 200 });
    expect(await keys.keyFor(agent('rotating'), first.thumbprint)).toEqual(first.bytes);
    serve('rotating', directoryOf(first.x, added.x));
    expect(await keys.keyFor(agent('rotating'), added.thumbprint)).toBeUndefined();
    expect(served('rotating')).toBe(1);
    await new Promise((done) => setTimeout(done, 250));
    expect(await keys.keyFor(agent('rotating'), added.thumbprint)).toEqual(added.bytes);
    expect(served('rotating')).toBe(2);
  });

  it('refuses loopback and private addresses unless the policy allows them, without a request', async () => {
    const key = newKey();
    serve('inside', directoryOf(key.x));
    const keys = directories({ policy: { allowPrivate: false, httpsOnly: false } });
    expect(await keys.keyFor(agent('inside'), key.thumbprint)).toBeUndefined();
    expect(await keys.keyFor(`"http://127.0.0.1:${port}"`, key.thumbprint)).toBeUndefined();
    expect(served('inside')).toBe(0);
    expect(debug.map(([fields]) => fields['reason'])).toEqual([
      expect.stringMatching(/^refused: inside\.test resolves to 127\.0\.0\.1: loopback/),
      expect.stringMatching(/^refused: 127\.0\.0\.1: loopback/),
    ]);
  });

  it('wants an https origin unless the policy allows http', async () => {
    const key = newKey();
    serve('plain', directoryOf(key.x));
    const keys = directories({ policy: { allowPrivate: true, httpsOnly: true } });
    expect(await keys.keyFor(agent('plain'), key.thumbprint)).toBeUndefined();
    expect(served('plain')).toBe(0);
    expect(debug.at(-1)?.[1]).toBe('Signature-Agent: not an https origin');
  });

  it('caps the fetches of all origins together per minute: past it, undefined and no request', async () => {
    const key = newKey();
    for (const name of ['cap-a', 'cap-b', 'cap-c']) serve(name, directoryOf(key.x));
    // Room for two origins: a lookup the cap refuses must not push a kept one out.
    const keys = directories({ fetchesPerMinute: 2, origins: 2 });
    expect(await keys.keyFor(agent('cap-a'), key.thumbprint)).toEqual(key.bytes);
    expect(await keys.keyFor(agent('cap-b'), key.thumbprint)).toEqual(key.bytes);
    expect(await keys.keyFor(agent('cap-c'), key.thumbprint)).toBeUndefined();
    expect(served('cap-c')).toBe(0);
    expect(debug.at(-1)?.[1]).toMatch(/at their cap/);
    // What is kept still answers.
    expect(await keys.keyFor(agent('cap-a'), key.thumbprint)).toEqual(key.bytes);
    expect(await keys.keyFor(agent('cap-b'), key.thumbprint)).toEqual(key.bytes);
    expect(served('cap-a') + served('cap-b')).toBe(2);
  });

  it('keeps a directory as long as its Cache-Control max-age says, within the bounds', async () => {
    const key = newKey();
    serve('short', directoryOf(key.x), { 'content-type': 'application/json', 'cache-control': 'max-age=0' });
    const keys = directories({ minTtlMs: 200 });
    expect(await keys.keyFor(agent('short'), key.thumbprint)).toEqual(key.bytes);
    expect(await keys.keyFor(agent('short'), key.thumbprint)).toEqual(key.bytes);
    expect(served('short')).toBe(1);
    await new Promise((done) => setTimeout(done, 250));
    expect(await keys.keyFor(agent('short'), key.thumbprint)).toEqual(key.bytes);
    expect(served('short')).toBe(2);
  });

  it.each([
    ['not a string', ['"https://a.example"', '"https://b.example"'] as unknown as string],
    ['a token, not a string', 'https'],
    ['an integer', '42'],
    ['an inner list', '("https://a.example")'],
    ['a dictionary whose first member is a token', 'sig1=agent'],
    ['a NUL', '"https://agent.example\u0000"'],
    ['empty', ''],
    ['blank', '   '],
    ['not a URL', '"agent.example"'],
    ['not an http(s) URL', '"ftp://agent.example"'],
    ['a list of strings', '"https://a.example", "https://b.example"'],
  ])('throws auth.malformed for a Signature-Agent that is %s, before any request', async (_case, header) => {
    const before = requests.length;
    const failure = await directories()
      .keyFor(header, newKey().thumbprint)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({
      code: 'auth.malformed',
      message: expect.stringMatching(/^Signature-Agent /),
    });
    expect(requests.length).toBe(before);
  });
});

describe('signatureAgentOrigin', () => {
  it('keeps the scheme, host and port only', () => {
    expect(signatureAgentOrigin('"https://Agent.Example:443/keys?x=1"').href).toBe('https://agent.example/');
    expect(signatureAgentOrigin('"https://u:p@agent.example:8443/"').href).toBe(
      'https://agent.example:8443/',
    );
    expect(signatureAgentOrigin('sig1="http://agent.example";p=1').href).toBe('http://agent.example/');
    expect(signatureAgentOrigin('"https://agent.example";key="v"').origin).toBe('https://agent.example');
  });
});

describe('ttlOf', () => {
  const limits = { ttlMs: 3_600_000, minTtlMs: 60_000, maxTtlMs: 86_400_000 };
  it.each([
    [null, 3_600_000],
    ['public', 3_600_000],
    ['max-age=600', 600_000],
    ['public, MAX-AGE=600', 600_000],
    ['max-age="600"', 600_000],
    ['max-age=5', 60_000],
    ['max-age=999999999999', 86_400_000],
    ['no-store', 60_000],
    ['no-cache, max-age=600', 60_000],
  ])('Cache-Control %s keeps a directory %d ms', (cacheControl, ttl) => {
    expect(ttlOf(cacheControl, limits)).toBe(ttl);
  });
});

describe('keyDirectoriesOf', () => {
  const logger = { debug: () => undefined, warn: () => undefined };
  it('is off with SIGNATURE_AGENT_DIRECTORIES=false, and https-only unless private addresses are allowed', async () => {
    expect(
      keyDirectoriesOf({ SIGNATURE_AGENT_DIRECTORIES: false, SIGNATURE_AGENT_ALLOW_PRIVATE: false }, logger),
    ).toBeUndefined();
    const strict = keyDirectoriesOf(
      { SIGNATURE_AGENT_DIRECTORIES: true, SIGNATURE_AGENT_ALLOW_PRIVATE: false },
      logger,
    );
    expect(strict).toBeInstanceOf(KeyDirectories);
    // http is refused before any lookup (no resolver is asked: the name does not exist).
    expect(await strict!.keyFor('"http://nowhere.invalid"', 'x'.repeat(43))).toBeUndefined();
  });
});

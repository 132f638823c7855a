import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerGuard, newBearerToken, readBearerToken } from './bearer-token.js';

describe('the bearer token of townhall mcp --http', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'townhall-token-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function tokenFile(name: string, text: string, mode: number): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    await chmod(path, mode);
    return path;
  }

  it('a new one is 32 random bytes, base64url', () => {
    const [one, two] = [newBearerToken(), newBearerToken()];
    expect(one).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(one, 'base64url')).toHaveLength(32);
    expect(one).not.toBe(two);
  });

  it('reads a token file its owner alone can read, one line, surrounding whitespace ignored', async () => {
    const token = newBearerToken();
    expect(await readBearerToken(await tokenFile('good', `${token}\n`, 0o600))).toBe(token);
    expect(await readBearerToken(await tokenFile('owner-only', `  ${token}  `, 0o400))).toBe(token);
  });

  it.each([
    ['missing', undefined, 0o600, 'token.not_found', /cannot read/],
    ['group-readable', newBearerToken(), 0o640, 'token.too_open', /0640.*chmod 600/],
    ['world-readable', newBearerToken(), 0o604, 'token.too_open', /too open/],
    ['empty', '\n', 0o600, 'token.malformed', /empty/],
    ['short', 'x'.repeat(31), 0o600, 'token.malformed', /31 characters; it needs at least 32/],
    ['two-words', `${'a'.repeat(20)} ${'b'.repeat(20)}`, 0o600, 'token.malformed', /one line/],
  ] as const)('refuses a %s token file', async (name, text, mode, code, message) => {
    const path = text === undefined ? join(dir, 'nothing-here') : await tokenFile(name, text, mode);
    await expect(readBearerToken(path)).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
    });
  });

  describe('the guard', () => {
    const token = newBearerToken();
    let server: Server;
    let url: string;
    beforeAll(async () => {
      const authorized = bearerGuard(token);
      server = createServer((request, response) => {
        if (authorized(request, response)) response.end('in');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('lets the right token through, in any case of "Bearer"', async () => {
      for (const scheme of ['Bearer', 'bearer']) {
        const response = await fetch(url, { headers: { authorization: `${scheme} ${token}` } });
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('in');
      }
    });

    it.each([
      ['no header', undefined, 'Bearer realm="townhall mcp"'],
      ['a wrong token', `Bearer ${newBearerToken()}`, 'Bearer realm="townhall mcp", error="invalid_token"'],
      [
        'a prefix of it',
        `Bearer ${token.slice(0, -1)}`,
        'Bearer realm="townhall mcp", error="invalid_token"',
      ],
      ['another scheme', `Basic ${token}`, 'Bearer realm="townhall mcp"'],
    ])('answers 401 with WWW-Authenticate to %s', async (_, authorization, challenge) => {
      const response = await fetch(url, authorization === undefined ? {} : { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Bearer/);
    });
  });
});

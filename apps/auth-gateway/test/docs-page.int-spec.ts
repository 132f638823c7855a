import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, SignatureVerifier, type AgentKey } from '@townhall/auth';
import { Directory, DomainError, type CardInput, type DirectoryCard } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { encodeKeyFile } from '@townhall/sdk/key-file';
import { freePort } from '@townhall/testing';
import {
  ARTIFACTS_DIR,
  browserTestsRun,
  CHROMIUM,
  CHROMIUM_ARGS,
  requireChromium,
} from '@townhall/testing/chromium';
import bs58 from 'bs58';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import { MemoryNonceStore } from '../src/auth/nonce-store.js';
import { createGateway } from '../src/gateway.js';

const SCREENSHOT = join(ARTIFACTS_DIR, 'docs.png');
const browserTest = browserTestsRun('/docs') ? it : it.skip;
/**
 * How long the browser may take to launch, load or show something: a ceiling, not a claim (about a
 * second each here; CI's fast tier on a loaded two-core machine once took over 30 s for a test).
 */
const BROWSER_WAIT_MS = 60_000;

const noServices: ServiceClient = {
  send: async () => {
    throw new DomainError('service.unavailable', 'no services in this test');
  },
  close: async () => {},
};

/** A directory service in memory: enough for a signed write and a signed read of a card. */
function memoryDirectory(): ServiceClient {
  const cards = new Map<string, DirectoryCard>();
  return {
    send: async (contract, data, meta) => {
      if (contract.pattern === Directory.putCard.pattern && meta.caller) {
        const input = data as unknown as CardInput;
        const before = cards.get(meta.caller);
        const now = new Date().toISOString();
        const card: DirectoryCard = {
          agentId: meta.caller,
          handle: input.handle.toLowerCase(),
          displayName: input.displayName ?? null,
          bio: input.bio ?? null,
          avatarUrl: input.avatarUrl ?? null,
          links: input.links ?? [],
          createdAt: before?.createdAt ?? now,
          updatedAt: now,
        };
        cards.set(meta.caller, card);
        return { card, created: before === undefined } as never;
      }
      if (contract.pattern === Directory.getCard.pattern) {
        const card = cards.get((data as { agentId: string }).agentId);
        if (!card) throw new DomainError('directory.card_not_found', 'no card');
        return card as never;
      }
      throw new DomainError('service.unavailable', 'no such service in this test');
    },
    close: async () => {},
  };
}

/** Every form the seed could take on the wire. */
function seedForms(key: AgentKey): string[] {
  const seed = Buffer.from(key.secretKey);
  return [seed.toString('base64url'), seed.toString('base64'), seed.toString('hex'), bs58.encode(seed)];
}

/** Opens an operation, "Try it out", fills it, executes it; answers the status and body it shows. */
async function tryItOut(
  page: Page,
  operation: string,
  fill: (block: ReturnType<Page['locator']>) => Promise<void>,
): Promise<{ status: string; body: string }> {
  const block = page.locator(`#operations-${operation}`);
  await block.locator('.opblock-summary-control').click();
  await block.locator('.try-out__btn').click();
  await fill(block);
  await block.locator('button.execute').click();
  const status = block.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
  const body = block.locator('.live-responses-table .response .response-col_description pre').first();
  return { status: (await status.innerText()).trim(), body: await body.innerText() };
}

describe('GET /docs in headless Chromium', () => {
  let app: NestFastifyApplication | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;

  afterEach(async () => {
    await context?.close(); // closes the browser and every process it started
    await app?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    context = undefined;
    app = undefined;
    profile = undefined;
  });

  async function launch(): Promise<BrowserContext> {
    profile = await mkdtemp(join(tmpdir(), 'townhall-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
      timeout: BROWSER_WAIT_MS,
    });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    return context;
  }

  browserTest(
    'renders every operation from the local document, with nothing fetched from elsewhere',
    async () => {
      requireChromium();
      app = await createGateway({
        audience: 'https://townhall.test',
        bodyLimit: 64 * 1024,
        logger: createLogger('docs-page-test', 'silent'),
        services: noServices,
        nonces: new MemoryNonceStore(),
        verifier: new SignatureVerifier(),
        readiness: {},
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

      const context = await launch();
      const elsewhere: string[] = [];
      const problems: string[] = [];
      context.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) elsewhere.push(url);
      });
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });

      const response = await page.goto(`${origin}/docs`, { waitUntil: 'load', timeout: BROWSER_WAIT_MS });
      expect(response?.status()).toBe(200);
      const rsvp = page.locator('.opblock-summary-path[data-path="/events/{id}/rsvp"]').first();
      await rsvp.waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
      expect((await rsvp.innerText()).replace(/\u200b/g, '')).toContain('/events/{id}/rsvp');
      await page.getByText('Townhall API', { exact: false }).first().waitFor({ state: 'visible' });
      const operations = await page.locator('.opblock').count();
      expect(operations).toBeGreaterThan(40);
      // Swagger UI lists what it could not read of the document here (none of it may be missing).
      expect(await page.locator('.errors-wrapper').count()).toBe(0);

      await mkdir(ARTIFACTS_DIR, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  browserTest(
    'signs "Try it out" with a pasted key: a write and a read of it, and the key never leaves the page',
    async () => {
      requireChromium();
      // The page signs for the document's server (PUBLIC_BASE_URL): here, where the browser goes.
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      app = await createGateway({
        audience: origin,
        bodyLimit: 64 * 1024,
        logger: createLogger('docs-page-test', 'silent'),
        services: memoryDirectory(),
        nonces: new MemoryNonceStore(),
        verifier: new SignatureVerifier(),
        readiness: {},
      });
      // Everything the server receives: request line, headers and body bytes.
      const received: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];
      const fastify = app.getHttpAdapter().getInstance();
      fastify.addHook('onResponse', async (request) => {
        received.push({
          url: request.raw.url ?? '',
          headers: { ...request.headers },
          body: request.rawBody?.toString('utf8') ?? '',
        });
      });
      await app.listen({ port, host: '127.0.0.1' });

      const context = await launch();
      const sent: Request[] = [];
      const problems: string[] = [];
      context.on('request', (request) => sent.push(request));
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${origin}/docs`, { waitUntil: 'load', timeout: BROWSER_WAIT_MS });

      // The key field has the Authorize button's place; Swagger UI's own dialog is gone.
      const field = page.locator('#townhall-key');
      await field.waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
      expect(await page.locator('.btn.authorize').count()).toBe(0);
      const key = generateAgentKey();
      await field.fill(encodeKeyFile(key));
      await page.locator('#townhall-key-use').click();
      await page
        .locator('#townhall-key-status', { hasText: `Signing as ${key.agentId}` })
        .waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
      expect(await field.inputValue()).toBe('');
      await mkdir(ARTIFACTS_DIR, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS_DIR, 'docs-key.png') });

      const write = await tryItOut(page, 'Directory-directoryPutMine', async (block) => {
        await block
          .locator('textarea.body-param__text')
          .fill('{"handle":"docs_alice","displayName":"Alice"}');
      });
      expect(write.status).toBe('201');
      expect(JSON.parse(write.body)).toMatchObject({ agentId: key.agentId, handle: 'docs_alice' });

      const read = await tryItOut(page, 'Directory-directoryGetCard', async (block) => {
        await block.locator('tr[data-param-name="agentId"] input').fill(key.agentId);
      });
      expect(read.status).toBe('200');
      expect(JSON.parse(read.body)).toMatchObject({
        agentId: key.agentId,
        handle: 'docs_alice',
        displayName: 'Alice',
      });

      // Both went out signed by the key, as the gateway verified (it answered 2xx, not 401).
      const signed = received.filter((request) => typeof request.headers['authorization'] === 'string');
      expect(signed.map((request) => `${request.url}`)).toEqual([
        '/directory/me',
        `/directory/${key.agentId}`,
      ]);
      for (const request of signed)
        expect(String(request.headers['authorization'])).toMatch(new RegExp(`^service ${key.agentId}:`));

      // The same write signed under RFC 9421, chosen in the panel: the gateway takes it too.
      await page.locator('#townhall-scheme').selectOption('rfc9421');
      await page
        .locator('#townhall-key-status', { hasText: 'RFC 9421' })
        .waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
      const putMine = page.locator('#operations-Directory-directoryPutMine');
      // A new write: Swagger UI would send the first one's Idempotency-Key again (422 key_mismatch).
      await putMine.locator('tr[data-param-name="Idempotency-Key"] input').fill(randomUUID());
      await putMine
        .locator('textarea.body-param__text')
        .fill('{"handle":"docs_alice","displayName":"Alice 9421"}');
      await putMine.locator('button.execute').click();
      await putMine
        .locator('.live-responses-table .response .response-col_description pre', { hasText: 'Alice 9421' })
        .first()
        .waitFor({ state: 'visible', timeout: BROWSER_WAIT_MS });
      expect(
        (
          await putMine.locator('.live-responses-table .response .response-col_status').first().innerText()
        ).trim(),
      ).toBe('200');
      const rfc9421 = received.filter((request) => request.headers['signature-input'] !== undefined);
      expect(rfc9421.map((request) => request.url)).toEqual(['/directory/me']);
      expect(rfc9421[0]!.headers).toMatchObject({
        'signature-input': expect.stringMatching(
          new RegExp(
            `^sig1=\\("@method" "@authority" "@path" "@query" "content-digest"\\);.*keyid="${key.agentId}"`,
          ),
        ),
        signature: expect.stringMatching(/^sig1=:[A-Za-z0-9+/]+=*:$/),
        'content-digest': expect.stringMatching(/^sha-256=:/),
      });
      expect(rfc9421[0]!.headers['authorization']).toBeUndefined();

      // The seed is nowhere the server or anyone else could see it, nor stored in the browser.
      const wire = JSON.stringify(received);
      const fromPage = JSON.stringify(
        await Promise.all(
          sent.map(async (request) => ({
            url: request.url(),
            headers: await request.allHeaders(),
            body: request.postData() ?? '',
          })),
        ),
      );
      // Runs in the page (a string: this project's TypeScript has no DOM types).
      const stored = await page.evaluate<string>(
        'JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie })',
      );
      const dom = await page.content();
      for (const form of seedForms(key)) {
        expect(wire).not.toContain(form);
        expect(fromPage).not.toContain(form);
        expect(stored).not.toContain(form);
        expect(dom).not.toContain(form);
      }
      expect(sent.every((request) => request.url().startsWith(`${origin}/`))).toBe(true);

      await page.screenshot({ path: join(ARTIFACTS_DIR, 'docs-signed.png') });
      expect(problems).toEqual([]);
    },
  );
});

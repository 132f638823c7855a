import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignatureVerifier } from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { chromium, type BrowserContext } from 'playwright-core';
import { MemoryNonceStore } from '../src/auth/nonce-store.js';
import { createGateway } from '../src/gateway.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = '/tmp/townhall-ci/artifacts';
const SCREENSHOT = join(ARTIFACTS, 'docs.png');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Without it this test is
// skipped on a laptop, and fails under CI, where a skipped browser test would hide a broken page.
const haveChromium = existsSync(CHROMIUM);
const inCi = !['', '0', 'false'].includes((process.env['CI'] ?? '').toLowerCase());
if (!haveChromium && !inCi) {
  // eslint-disable-next-line no-console
  console.warn(
    `SKIPPED: the /docs browser test needs Chromium at ${CHROMIUM} (apt-get install -y chromium); set CI=true to make its absence a failure.`,
  );
}
const browserTest = haveChromium || inCi ? it : it.skip;

const noServices: ServiceClient = {
  send: async () => {
    throw new DomainError('service.unavailable', 'no services in this test');
  },
  close: async () => {},
};

describe('GET /docs in headless Chromium', () => {
  let app: NestFastifyApplication | undefined;
  let context: BrowserContext | undefined;
  let profile: string | undefined;

  afterEach(async () => {
    await context?.close(); // closes the browser and every process it started
    await app?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  browserTest(
    'renders every operation from the local document, with nothing fetched from elsewhere',
    async () => {
      if (!haveChromium) throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}`);
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

      profile = await mkdtemp(join(tmpdir(), 'townhall-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ARGS,
        viewport: { width: 1280, height: 900 },
        timeout: 15_000,
      });
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

      const response = await page.goto(`${origin}/docs`, { waitUntil: 'load', timeout: 15_000 });
      expect(response?.status()).toBe(200);
      const rsvp = page.locator('.opblock-summary-path[data-path="/events/{id}/rsvp"]').first();
      await rsvp.waitFor({ state: 'visible', timeout: 15_000 });
      expect((await rsvp.innerText()).replace(/\u200b/g, '')).toContain('/events/{id}/rsvp');
      await page.getByText('Townhall API', { exact: false }).first().waitFor({ state: 'visible' });
      const operations = await page.locator('.opblock').count();
      expect(operations).toBeGreaterThan(40);
      // Swagger UI lists what it could not read of the document here (none of it may be missing).
      expect(await page.locator('.errors-wrapper').count()).toBe(0);

      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(existsSync(SCREENSHOT)).toBe(true);
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    },
    30_000,
  );
});

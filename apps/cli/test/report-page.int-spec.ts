import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ARTIFACTS_DIR,
  browserTestsRun,
  CHROMIUM,
  CHROMIUM_ARGS,
  requireChromium,
} from '@townhall/testing/chromium';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { reportHtml } from '../src/report/report-html.js';
import { MAX_CHART_POINTS } from '../src/report/svg-charts.js';
import { emptyReport, fullReport, SCRIPT_QUESTION } from './report-fixtures.js';

/*
 * `townhall report --html`'s page as a reader opens it: a file in Debian's Chromium, offline. Its
 * charts are drawn with the points and bars of the report, nothing is fetched, what people wrote
 * stays text, and the dark scheme applies when the system prefers it.
 */

const browserTest = browserTestsRun('report page') ? it : it.skip;
/** A ceiling for the browser to launch or load, not a claim (about a second each here). */
const BROWSER_WAIT_MS = 60_000;

describe('the report page in Chromium', () => {
  let context: BrowserContext | undefined;
  let folder: string | undefined;

  afterEach(async () => {
    await context?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
    context = undefined;
    folder = undefined;
  });

  /**
   * Opens `html` as a file: the page, every request the browser made for it other than the file
   * itself, and every Content-Security-Policy violation (a load or a script the page tried).
   */
  async function open(html: string): Promise<{ page: Page; elsewhere: string[]; problems: string[] }> {
    folder = await mkdtemp(join(tmpdir(), 'townhall-report-page-'));
    const file = join(folder, 'report.html');
    await writeFile(file, html, 'utf8');
    const url = pathToFileURL(file).href;
    context = await chromium.launchPersistentContext(join(folder, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 900, height: 1200 },
      timeout: BROWSER_WAIT_MS,
    });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    const elsewhere: string[] = [];
    const problems: string[] = [];
    context.on('request', (request) => {
      if (request.url() !== url) elsewhere.push(request.url());
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    // The test's own listener (the page has no script): what the page's policy refused.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        (window as unknown as { violations?: string[] }).violations ??= [];
        (window as unknown as { violations: string[] }).violations.push(
          `${event.violatedDirective} ${event.blockedURI}`,
        );
      });
    });
    await page.goto(url, { waitUntil: 'load' });
    return { page, elsewhere, problems };
  }

  const count = (page: Page, selector: string) => page.locator(selector).count();
  /** The number of x,y pairs of a chart's line. */
  const linePoints = (page: Page, chart: string) =>
    page
      .locator(`svg.chart.${chart} polyline.line`)
      .getAttribute('points')
      .then((points) => (points ?? '').trim().split(/\s+/).length);
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const barFill = (page: Page) =>
    page.evaluate(() => getComputedStyle(document.querySelector('svg.chart.tiers rect.bar')!).fill);

  browserTest(
    'draws every chart with its points and bars, fetches nothing, runs nothing a question says',
    async () => {
      requireChromium();
      const { page, elsewhere, problems } = await open(
        reportHtml(fullReport({ registrationPoints: 12, viewerPoints: 30 }), { title: 'Numbers' }),
      );
      await page.locator('svg.chart.registrations').waitFor();

      expect(await count(page, 'svg.chart.registrations circle.point')).toBe(12);
      expect(await linePoints(page, 'registrations')).toBe(12);
      expect(await count(page, 'svg.chart.registrations path.area')).toBe(1);
      expect(await count(page, 'svg.chart.viewers circle.point')).toBe(30);
      expect(await linePoints(page, 'viewers')).toBe(30);
      expect(await count(page, 'svg.chart.tiers rect.bar')).toBe(3);
      expect(await count(page, 'svg.chart.questions rect.bar')).toBe(3);
      const polls = page.locator('svg.chart.poll');
      expect(await polls.count()).toBe(2);
      expect(await polls.nth(0).locator('rect.bar').count()).toBe(3);
      expect(await polls.nth(1).locator('rect.bar').count()).toBe(2);
      // Drawn, not only present: the largest tier's bar is wider than the next, and on screen.
      const tiers = page.locator('svg.chart.tiers rect.bar');
      const [general, vip] = [await tiers.nth(0).boundingBox(), await tiers.nth(1).boundingBox()];
      expect(general!.width).toBeGreaterThan(vip!.width);
      expect(vip!.width).toBeGreaterThan(0);
      expect(await page.locator('svg.chart.registrations').isVisible()).toBe(true);

      // Nothing fetched, nothing refused by the page's policy, no script at all.
      expect(elsewhere).toEqual([]);
      expect(
        await page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []),
      ).toEqual([]);
      expect(
        await count(page, 'script, link, img, iframe, object, embed, [src], [href], [onerror], [onload]'),
      ).toBe(0);
      // The question that is a script is shown as the text it is, and never ran.
      expect(
        await page.evaluate(() => (window as unknown as { __reportPwned?: boolean }).__reportPwned),
      ).toBe(undefined);
      expect(await page.locator('ol.questions li').nth(1).innerText()).toContain(SCRIPT_QUESTION);
      expect(await page.title()).toBe('Report: Numbers');
      expect(problems).toEqual([]);

      await mkdir(ARTIFACTS_DIR, { recursive: true });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: join(ARTIFACTS_DIR, 'report-light.png'), fullPage: true });
      const light = { background: await background(page), bar: await barFill(page) };
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: join(ARTIFACTS_DIR, 'report-dark.png'), fullPage: true });
      const dark = { background: await background(page), bar: await barFill(page) };
      expect(light.background).toBe('rgb(255, 255, 255)');
      expect(dark.background).toBe('rgb(13, 17, 23)');
      expect(dark.bar).not.toBe(light.bar);
    },
    BROWSER_WAIT_MS * 3,
  );

  browserTest(
    'draws a long series thinned to its most points, and a one-point series as one dot',
    async () => {
      requireChromium();
      const { page, elsewhere } = await open(
        reportHtml(fullReport({ registrationPoints: 1, viewerPoints: 5000 })),
      );
      expect(await count(page, 'svg.chart.registrations circle.point')).toBe(1);
      expect(await count(page, 'svg.chart.viewers circle.point')).toBe(MAX_CHART_POINTS);
      expect(await linePoints(page, 'viewers')).toBe(MAX_CHART_POINTS);
      expect(elsewhere).toEqual([]);
    },
    BROWSER_WAIT_MS * 3,
  );

  browserTest(
    'shows an event nobody came to without a chart, in either scheme',
    async () => {
      requireChromium();
      const { page, problems } = await open(reportHtml(emptyReport()));
      expect(await count(page, 'svg')).toBe(0);
      expect(await page.locator('#registrations .empty').innerText()).toBe(
        'Tickets issued over time: no data yet.',
      );
      expect(await page.locator('#attendance .empty').innerText()).toBe('Nobody seen yet.');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background(page)).toBe('rgb(13, 17, 23)');
      expect(problems).toEqual([]);
    },
    BROWSER_WAIT_MS * 3,
  );
});

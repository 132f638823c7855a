import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { EventFieldsInput, EventView, QuestionView } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { freePort, StandaloneProcess, Topology, waitFor } from '@townhall/testing';
import {
  ARTIFACTS_DIR,
  browserTestsRun,
  CHROMIUM,
  CHROMIUM_ARGS,
  requireChromium,
} from '@townhall/testing/chromium';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core';

// The watch page and the index (docs/product.md "Watch page (humans)") in a real Chromium, against
// both modes: the distributed topology (every service and the gateway as processes, NATS,
// Postgres, Redis) and the standalone process. One of each, one browser, pages reused.

const describeBrowser = browserTestsRun('watch page') ? describe : describe.skip;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TITLE = 'Ask the agents <script>alert("watch")</script>';
/** The budget from a write through the API to the change on an open page. */
const LIVE_MS = 1_000;
const HOUR = 3_600_000;
/** LIVE_REPLAY_LIMIT of both modes: a page more than this many stream messages behind is cut. */
const REPLAY_LIMIT = 10;

const log = (line: string) => process.stdout.write(`[watch] ${line}\n`);

/** Whitespace as a reader sees it: runs of it are one space. */
const normal = (text: string) => text.replace(/\s+/g, ' ').trim();

interface Mode {
  baseUrl: string;
  client(): AgentClient;
  /** `-standalone` for the standalone process's screenshots. */
  suffix: string;
}

/** An event with a stage, questions and polls, live, and one upcoming event beside it. */
interface Room {
  event: EventView;
  host: AgentClient;
  asker: AgentClient;
  handle: string;
  /** A speaker with a directory card of its own. */
  speaker: AgentClient;
  speakerHandle: string;
  quiet: QuestionView;
  upcoming: EventView;
}

async function openRoom(mode: Mode, label: string): Promise<Room> {
  const [host, asker, voter, speaker] = [mode.client(), mode.client(), mode.client(), mode.client()];
  const suffix = Math.random().toString(36).slice(2, 8);
  const handle = `watch_${label}_${suffix}`;
  const speakerHandle = `speaks_${label}_${suffix}`;
  await Promise.all([
    host.directory.putMe({ handle, displayName: 'Watch host' }),
    speaker.directory.putMe({ handle: speakerHandle }),
  ]);
  const startsAt = new Date(Date.now() + HOUR);
  const fields: EventFieldsInput = {
    title: TITLE,
    description: 'An AMA for agents.\nPeople watch.',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'Europe/Berlin',
    capacity: 50,
    speakers: [speaker.agentId],
    agenda: [
      { title: 'Welcome', startOffsetMinutes: 0, durationMinutes: 10 },
      { title: 'Questions & answers', startOffsetMinutes: 10 },
    ],
  };
  const event = await host.events.create(fields);
  // Paid: its price shows in USDC's own units (2500 atomic units are 0.0025 USDC).
  const upcoming = await host.events.create({
    ...fields,
    ticketing: { mode: 'single', price: '2500', asset: 'USDC' },
    title: 'Next week: the same, again',
    startsAt: new Date(startsAt.getTime() + 168 * HOUR).toISOString(),
    endsAt: new Date(startsAt.getTime() + 169 * HOUR).toISOString(),
  });
  await Promise.all([asker.tickets.rsvp(event.id), voter.tickets.rsvp(event.id)]);
  // Started an hour before it is scheduled to: the pages say when it did.
  const started = await host.events.start(event.id);
  await host.stage.post(event.id, 'Welcome, everyone: <b>ask</b> away.');
  await speaker.stage.post(event.id, 'A word from the speaker.');
  const popular = await asker.questions.submit(event.id, 'How do agents keep their keys safe?');
  await voter.questions.upvote(event.id, popular.id);
  const quiet = await voter.questions.submit(event.id, 'What comes next?');
  const poll = await host.polls.open(event.id, { question: 'Tabs or spaces?', options: ['Tabs', 'Spaces'] });
  await voter.polls.vote(event.id, poll.id, [poll.options[1]!.id]);
  await host.polls.open(event.id, {
    question: 'Best talk?',
    options: ['This one', 'The next one'],
    resultsVisibility: 'after_close',
  });
  // Tickets reach the event's counts a moment later (a projection): wait, so every page agrees.
  await waitFor('the tickets counted', async () =>
    (await host.events.get(event.id)).counts.ticketsSold['general'] === 2 ? true : undefined,
  );
  return { event: started, host, asker, handle, speaker, speakerHandle, quiet, upcoming };
}

/** A browser context that records what a page asks for, says on its console and tries to open. */
interface Watched {
  context: BrowserContext;
  page: Page;
  requests: string[];
  console: string[];
  dialogs: string[];
}

async function watchContext(browser: Browser, options: BrowserContextOptions = {}): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const watched: Watched = { context, page: await context.newPage(), requests: [], console: [], dialogs: [] };
  context.on('request', (request) => watched.requests.push(request.url()));
  watched.page.on('console', (message) => watched.console.push(`${message.type()}: ${message.text()}`));
  watched.page.on('pageerror', (error) => watched.console.push(`page error: ${error.message}`));
  watched.page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return watched;
}

/** Waits until `locator` shows (Playwright's own polling: a string predicate would need eval, which the CSP forbids); answers the ms it took. */
async function within(locator: Locator, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  await locator.waitFor({ state: 'visible', timeout: timeoutMs });
  return Math.round(performance.now() - started);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

describeBrowser('the watch page and the index in Chromium', () => {
  let browser: Browser | undefined;
  let topology: Topology | undefined;
  let standalone: StandaloneProcess | undefined;
  const modes: Record<'distributed' | 'standalone', Mode> = {} as never;

  beforeAll(async () => {
    requireChromium();
    const started = Date.now();
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // All three at once; the standalone process signs for the origin the browser and the agents
    // use. Whatever started is kept for afterAll to stop, even when another part failed.
    const [distributed, single, launched] = await Promise.allSettled([
      Topology.start({ env: { LIVE_REPLAY_LIMIT: String(REPLAY_LIMIT) } }),
      StandaloneProcess.start(
        {
          PUBLIC_BASE_URL: origin,
          RATE_LIMIT_WRITES_PER_SECOND: '0',
          RATE_LIMIT_READS_PER_SECOND: '0',
          RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0',
          LIVE_REPLAY_LIMIT: String(REPLAY_LIMIT),
        },
        port,
      ),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 15_000 }),
    ]);
    if (distributed.status === 'fulfilled') topology = distributed.value;
    if (single.status === 'fulfilled') standalone = single.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    for (const part of [distributed, single, launched]) if (part.status === 'rejected') throw part.reason;
    const cluster = topology!;
    const alone = standalone!;
    modes.distributed = { baseUrl: cluster.baseUrl, client: () => cluster.client(), suffix: '' };
    modes.standalone = {
      baseUrl: alone.baseUrl,
      client: () => new AgentClient({ baseUrl: alone.baseUrl }),
      suffix: '-standalone',
    };
    log(`both modes and Chromium up in ${Date.now() - started} ms`);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([topology?.stop(), standalone?.stop()]);
  });

  for (const name of ['distributed', 'standalone'] as const) {
    describe(`${name} mode`, () => {
      let mode: Mode;
      let room: Room;
      let live: Watched;
      let watchUrl: string;

      beforeAll(async () => {
        mode = modes[name];
        const started = Date.now();
        room = await openRoom(mode, name.slice(0, 4));
        watchUrl = `${mode.baseUrl}/events/${room.event.id}/watch`;
        live = await watchContext(browser!);
        log(`${name}: room ready in ${Date.now() - started} ms`);
      });
      afterAll(async () => {
        await live?.context.close();
      });

      it('renders the event, its stage, questions and polls as text, under its CSP, with nothing from elsewhere', async () => {
        const response = await live.page.goto(watchUrl, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        expect(response?.headers()['content-security-policy']).toBe(
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        );
        const ms = await within(live.page.locator('#live-status', { hasText: 'Following live' }));
        log(`${name}: following the live stream ${ms} ms after load`);

        const page = live.page;
        // The title is text: the h1 reads the tag, no script ran, no dialog opened.
        expect(await page.locator('h1').innerText()).toBe(TITLE);
        expect(await page.title()).toBe(`${TITLE} · Townhall`);
        expect(await page.evaluate<number>('document.scripts.length')).toBe(1);
        const main = normal(await page.locator('main').innerText());
        for (const words of [
          'LIVE',
          `Host @${room.handle}`,
          'Time zone Europe/Berlin',
          'An AMA for agents.',
          `@${room.handle} (host)`,
          'Welcome, everyone: <b>ask</b> away.',
          // Every author with a directory card by its @handle, not its key.
          `@${room.speakerHandle} (speaker)`,
          'A word from the speaker.',
          'How do agents keep their keys safe? 1 upvote Open',
          'What comes next? 0 upvotes Open',
          'Tabs or spaces? Open · 1 ballot',
          'Tabs 0 votes (0%)',
          'Spaces 1 vote (100%)',
          'Best talk? Open',
          'Results are shown when the poll closes.',
          'Welcome',
          'Questions & answers',
          'Free admission: 48 of 50 seats left',
        ])
          expect([words, main.includes(words)]).toEqual([words, true]);
        // Questions by upvotes.
        expect(await page.locator('#question-list > li').first().innerText()).toContain('keys safe');
        // Start and end in the event's zone (Berlin: CET or CEST, whichever the date has): when it
        // started (an hour before its scheduled start), and when it is scheduled to end.
        const time = String.raw`\w{3}, \d{1,2} \w{3} \d{4}, \d{2}:\d{2} CES?T`;
        expect(main).toMatch(new RegExp(`Started ${time} Scheduled end ${time}`));
        expect(room.event.startedAt).not.toBeNull();
        expect(await page.locator('#event-summary time').first().getAttribute('datetime')).toBe(
          room.event.startedAt,
        );
        expect(await page.locator('#event-summary time').nth(1).getAttribute('datetime')).toBe(
          room.event.endsAt,
        );

        const origin = new URL(mode.baseUrl).origin;
        expect(
          live.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
        ).toEqual([]);
        expect(live.console.filter((line) => /Content.Security.Policy|Refused to/i.test(line))).toEqual([]);
        expect(live.console.filter((line) => /^(error|page error)/.test(line))).toEqual([]);
        expect(live.dialogs).toEqual([]);
      });

      it(`shows a stage post and an upvote made through the API within ${LIVE_MS} ms, and a hidden message leaves`, async () => {
        const page = live.page;
        const words = `Posted live at ${Date.now()}`;
        let started = performance.now();
        const posted = await room.host.stage.post(room.event.id, words);
        await page.locator('#stage-messages > li', { hasText: words }).waitFor({ timeout: 5_000 });
        const postMs = Math.round(performance.now() - started);
        // A message the script adds names its author as the page does: by @handle.
        const spoken = `Spoken live at ${Date.now()}`;
        await room.speaker.stage.post(room.event.id, spoken);
        const added = page.locator('#stage-messages > li', { hasText: spoken });
        await added.waitFor({ timeout: 5_000 });
        expect(await added.locator('.author').innerText()).toBe(`@${room.speakerHandle} (speaker)`);

        started = performance.now();
        await room.asker.questions.upvote(room.event.id, room.quiet.id);
        await page
          .locator(`#q-${room.quiet.id} .upvotes`, { hasText: /^1 upvote$/ })
          .waitFor({ timeout: 5_000 });
        const upvoteMs = Math.round(performance.now() - started);

        // A moderator's hide (POST /events/{id}/stage/{messageId}/hide): the message stays, its body goes.
        started = performance.now();
        await room.host.stage.hide(room.event.id, posted.id);
        await page
          .locator(`#m-${posted.id}`, { hasText: 'message removed by a moderator' })
          .waitFor({ timeout: 5_000 });
        const hideMs = Math.round(performance.now() - started);
        expect(await page.locator('#stage-messages').innerText()).not.toContain(words);
        log(
          `${name}: API write to the open page: stage post ${postMs} ms, upvote ${upvoteMs} ms, hide ${hideMs} ms`,
        );
        expect(postMs).toBeLessThan(LIVE_MS);
        expect(upvoteMs).toBeLessThan(LIVE_MS);
        expect(hideMs).toBeLessThan(LIVE_MS);
        // The upvoted question moved up beside the other one: both have one upvote now, the older first.
        expect(await page.locator('#question-list > li').allInnerTexts()).toHaveLength(2);
        expect(live.dialogs).toEqual([]);
      });

      it('shows the same content without JavaScript', async () => {
        const still = await watchContext(browser!, { javaScriptEnabled: false });
        try {
          const response = await still.page.goto(watchUrl, { waitUntil: 'load' });
          expect(response?.status()).toBe(200);
          const without = normal(await still.page.locator('main').innerText());
          const withScript = normal(await live.page.locator('main').innerText());
          expect(without).toContain('message removed by a moderator');
          expect(withScript).toBe(without);
          expect(
            still.requests.every(
              (url) => url.startsWith(`${new URL(mode.baseUrl).origin}/`) || url.startsWith('data:'),
            ),
          ).toBe(true);
        } finally {
          await still.context.close();
        }
      });

      it('is readable at 1280 and 360 px wide, and so is the index (screenshots)', async () => {
        const page = live.page;
        for (const width of [1280, 360]) {
          await page.setViewportSize({ width, height: 900 });
          await page.screenshot({
            path: join(ARTIFACTS_DIR, `watch-${width}${mode.suffix}.png`),
            fullPage: true,
          });
          if (width === 360)
            expect(await page.evaluate<number>('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(
              360,
            );
        }
        const index = await live.context.newPage();
        try {
          const response = await index.goto(`${mode.baseUrl}/`, { waitUntil: 'load' });
          expect(response?.status()).toBe(200);
          expect(response?.headers()['content-type']).toMatch(/^text\/html/);
          const link = index.locator(`a[href="/events/${room.event.id}/watch"]`);
          expect(await link.innerText()).toBe(TITLE);
          expect(normal(await index.locator('#live').innerText())).toContain(TITLE);
          const card = index.locator('#live li', { has: link });
          expect(normal(await card.innerText())).toMatch(/^.+ Started \w{3}, .+ CES?T · Free$/);
          expect(await card.locator('time').getAttribute('datetime')).toBe(room.event.startedAt);
          const next = index.locator('#upcoming li', {
            has: index.locator(`a[href="/events/${room.upcoming.id}/watch"]`),
          });
          expect(normal(await next.innerText())).toMatch(
            /^Next week: the same, again Scheduled start \w{3}, .+ CES?T · 0\.0025 USDC$/,
          );
          // Its watch page: the price of a seat, in USDC's units.
          await index.goto(`${mode.baseUrl}/events/${room.upcoming.id}/watch`, { waitUntil: 'load' });
          expect(normal(await index.locator('#seats').innerText())).toContain(
            'Admission (0.0025 USDC): 50 of 50 seats left',
          );
          await index.goto(`${mode.baseUrl}/`, { waitUntil: 'load' });
          for (const width of [1280, 360]) {
            await index.setViewportSize({ width, height: 900 });
            await index.screenshot({
              path: join(ARTIFACTS_DIR, `index-${width}${mode.suffix}.png`),
              fullPage: true,
            });
            if (width === 360)
              expect(
                await index.evaluate<number>('document.scrollingElement.scrollWidth'),
              ).toBeLessThanOrEqual(360);
          }
          // A JSON client still gets JSON from GET /.
          const json = await fetch(`${mode.baseUrl}/`, { headers: { accept: 'application/json' } });
          expect(await json.json()).toMatchObject({ links: { docs: '/docs', openapi: '/openapi.json' } });
        } finally {
          await index.close();
          await page.setViewportSize({ width: 1280, height: 900 });
        }
        expect(live.dialogs).toEqual([]);
      });

      it('has no serious or critical accessibility violation, in light and dark', async () => {
        for (const colorScheme of ['light', 'dark'] as const) {
          // Only here is the CSP bypassed: axe is injected as an inline script.
          const context = await browser!.newContext({
            bypassCSP: true,
            colorScheme,
            viewport: { width: 1280, height: 900 },
          });
          try {
            const page = await context.newPage();
            for (const url of [
              watchUrl,
              `${mode.baseUrl}/`,
              `${mode.baseUrl}/events/00000000-0000-4000-8000-000000000000/watch`,
            ]) {
              await page.goto(url, { waitUntil: 'load' });
              await page.addScriptTag({ content: AXE_SOURCE });
              const violations = await page.evaluate<AxeViolation[]>(
                'axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)',
              );
              const serious = violations
                .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
                .map(
                  (violation) =>
                    `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
                );
              expect([colorScheme, url, serious]).toEqual([colorScheme, url, []]);
              if (url === watchUrl && colorScheme === 'dark')
                await page.screenshot({
                  path: join(ARTIFACTS_DIR, `watch-1280-dark${mode.suffix}.png`),
                  fullPage: true,
                });
            }
          } finally {
            await context.close();
          }
        }
      });

      it('loses nothing that happens between the page and the stream, even past a history cut', async () => {
        // The page is read, then its stream is held back while more than the replay limit happens:
        // the resume from the page's position is cut (history.cut), and the page reads the lists again.
        const gap = await watchContext(browser!);
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        await gap.context.route('**/events/*/live*', async (route) => {
          await held;
          await route.continue();
        });
        try {
          await gap.page.goto(watchUrl, { waitUntil: 'load' });
          const words = Array.from({ length: REPLAY_LIMIT + 2 }, (_, i) => `Meanwhile ${i + 1}`);
          for (const text of words) await room.host.stage.post(room.event.id, text);
          const message = (page: Page, text: string) =>
            page.locator('#stage-messages p.body', { hasText: new RegExp(`^${text}$`) });
          // Released once the gateway's stream has them all (the page that follows live shows the
          // last): the held page's resume then has more to read than the replay limit, however
          // slowly the relays published on a loaded machine.
          await within(message(live.page, words.at(-1)!));
          release();
          await within(gap.page.locator('#live-status', { hasText: 'Following live' }));
          // The cut skipped the first ones: only the re-read can have brought them.
          await within(message(gap.page, words[0]!));
          await within(message(gap.page, words.at(-1)!));
          // The page read the lists again (as JSON): what only history.cut makes it do.
          expect(gap.requests.some((url) => url.includes(`/events/${room.event.id}/stage?`))).toBe(true);
          const stage = await room.host.stage.list(room.event.id, { limit: 100 });
          expect(await gap.page.locator('#stage-messages > li').count()).toBe(stage.items.length);
          expect(normal(await gap.page.locator('main').innerText())).toBe(
            normal(await live.page.locator('main').innerText()),
          );
          expect(gap.console.filter((line) => /^(error|page error)/.test(line))).toEqual([]);
        } finally {
          release();
          await gap.context.close();
        }
      });

      it('follows the end of the event and the published recording', async () => {
        const page = live.page;
        await room.host.events.end(room.event.id);
        const started = performance.now();
        await within(page.locator('#event-summary .badge', { hasText: 'Ended' }));
        await within(page.locator('#recording', { hasText: 'Recording not yet published.' }));
        const endMs = Math.round(performance.now() - started);
        expect(await page.locator('#seats').count()).toBe(0);
        // When it ended, as it did, not as it was scheduled to.
        const endedAt = (await room.host.events.get(room.event.id)).endedAt;
        expect(endedAt).not.toBeNull();
        await within(page.locator('#event-summary dt', { hasText: 'Ended' }));
        expect(await page.locator('#event-summary time').nth(1).getAttribute('datetime')).toBe(endedAt);
        // Still following (a recording may come), but no longer "live": on this page and a new one.
        await within(page.locator('#live-status', { hasText: 'This event has ended.' }));
        const fresh = await live.context.newPage();
        try {
          await fresh.goto(watchUrl, { waitUntil: 'load' });
          await within(fresh.locator('#live-status', { hasText: 'This event has ended.' }));
        } finally {
          await fresh.close();
        }
        const summary = 'We talked about keys, and about what comes next.';
        // The recording is assembled when the event ends: publish once it is there.
        await waitFor('the recording assembled', async () => {
          try {
            return await room.host.recordings.publish(room.event.id, {
              summary,
              mediaUrl: 'https://media.example/ama.mp4',
            });
          } catch (error) {
            // 404 recording.not_found until it is assembled.
            if (error instanceof TownhallError && error.problem.code === 'recording.not_found')
              return undefined;
            throw error;
          }
        });
        const publishMs = await within(page.locator('#recording', { hasText: summary }));
        log(`${name}: the end on the page after ${endMs} ms, the published recording after ${publishMs} ms`);
        expect(await page.locator('#recording a[rel~="noopener"]').getAttribute('href')).toBe(
          'https://media.example/ama.mp4',
        );
        // The events service learns of the publication from engagement's domain event (a
        // consumer: PublishedRecordings), and the index links the recording from the event alone.
        await waitFor('the event to know its recording', async () =>
          (await room.host.events.get(room.event.id)).recordingPublishedAt === null ? undefined : true,
        );
        const index = await live.context.newPage();
        try {
          await index.goto(`${mode.baseUrl}/`, { waitUntil: 'load' });
          expect(normal(await index.locator('#past').innerText())).toContain(TITLE);
          const past = index.locator('#past li', {
            has: index.locator(`a[href="/events/${room.event.id}/watch"]`),
          });
          expect(normal(await past.innerText())).toMatch(/ Started \w{3}, .+ · Ended \w{3}, .+ · Recording$/);
          expect(await past.locator('time').nth(1).getAttribute('datetime')).toBe(endedAt);
          expect(
            await index.locator(`#past a[href="/events/${room.event.id}/watch#recording"]`).count(),
          ).toBe(1);
        } finally {
          await index.close();
        }
        await page.screenshot({ path: join(ARTIFACTS_DIR, `watch-ended${mode.suffix}.png`), fullPage: true });
        expect(live.console.filter((line) => /^(error|page error)/.test(line))).toEqual([]);
        expect(live.dialogs).toEqual([]);
      });
    });
  }
});

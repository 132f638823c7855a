import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventFieldsInput } from '@townhall/contracts';
import { AgentClient } from '@townhall/sdk';
import { saveKeyFile } from '@townhall/sdk/key-file';
import { compileCacheEnv, REPO_ROOT, refusal, StandaloneProcess, Topology, waitFor } from '@townhall/testing';
import { CHROMIUM, CHROMIUM_ARGS } from '@townhall/testing/chromium';
import { chromium } from 'playwright-core';

/*
 * docs/product.md "The report": a whole event, as either mode runs it. Four attendees buy tickets
 * (one with a code); while the event is live two of them watch on signed live streams and two
 * anonymous viewers watch too; the others ask, upvote and vote. The report then has the exact
 * counts, minutes present within a second of this test's own clock, the peak of concurrent
 * viewers, and revenue equal to the ledger's entries; the CSV has one line per holder.
 */

const HOUR = 3_600_000;
/** Presence snapshots every half second (PRESENCE_INTERVAL_MS), so the samples are many. */
const PRESENCE = { PRESENCE_INTERVAL_MS: '500' };

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'A townhall with numbers',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 20,
    ticketing: {
      mode: 'tiered',
      tiers: [
        { id: 'general', name: 'General', price: '1000', capacity: 15 },
        { id: 'vip', name: 'VIP', price: '4000', capacity: 5 },
      ],
    },
    ...overrides,
  };
}

/** A live stream held open until `close()`: when it opened and closed on this test's clock. */
async function watch(client: AgentClient, eventId: string, signed: boolean) {
  const abort = new AbortController();
  let opened = 0;
  const stream = (async () => {
    for await (const message of client.events.live(eventId, {
      signed,
      signal: abort.signal,
      onOpen: () => {
        opened ||= Date.now();
      },
    }))
      void message;
  })();
  await waitFor('the stream open', async () => (opened > 0 ? true : undefined));
  return {
    opened: () => opened,
    close: async () => {
      abort.abort();
      await stream.catch(() => undefined);
      return Date.now();
    },
  };
}

/** Runs the whole event; its id and its host, for what a test does with the report next. */
async function aWholeEvent(client: () => AgentClient): Promise<{ eventId: string; host: AgentClient }> {
  const host = client();
  const moderator = client();
  const event = await host.events.create(anEvent({ moderators: [moderator.agentId] }));
  await host.codes.create(event.id, { code: 'HALF', percentOff: 50, tierIds: ['general'] });
  const attendees = [client(), client(), client(), client()] as const;
  const [ada, bob, cyd, dee] = attendees;
  await ada.directory.putMe({
    handle: `ada_${ada.agentId
      .slice(-6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`,
  });
  for (const agent of attendees) await agent.ledger.faucet('10000');
  await ada.tickets.rsvp(event.id, { tierId: 'vip', maxPrice: '4000' });
  await bob.tickets.rsvp(event.id, { tierId: 'general', code: 'half', maxPrice: '500' });
  await cyd.tickets.rsvp(event.id, { tierId: 'general', maxPrice: '1000' });
  await dee.tickets.rsvp(event.id, { tierId: 'general', maxPrice: '1000' });

  await host.events.start(event.id);
  // Two watch signed, two anonymous viewers watch: four streams at once.
  const adaStream = await watch(ada, event.id, true);
  const bobStream = await watch(bob, event.id, true);
  const viewers = [await watch(client(), event.id, false), await watch(client(), event.id, false)];
  // The others write: a question each, upvotes, a poll's votes; the host posts on the stage.
  const first = await cyd.questions.submit(event.id, 'How were the numbers made?');
  const second = await dee.questions.submit(event.id, 'What comes next?');
  await dee.questions.upvote(event.id, first.id);
  await ada.questions.upvote(event.id, first.id);
  await host.questions.promote(event.id, first.id);
  const poll = await host.polls.open(event.id, { question: 'Again next month?', options: ['Yes', 'No'] });
  await cyd.polls.vote(event.id, poll.id, [poll.options[0]!.id]);
  await dee.polls.vote(event.id, poll.id, [poll.options[0]!.id]);
  await ada.polls.vote(event.id, poll.id, [poll.options[1]!.id]);
  await host.stage.post(event.id, 'Welcome');
  await host.stage.post(event.id, 'Thank you');
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  for (const viewer of viewers) await viewer.close();
  const bobClosed = await bobStream.close();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const adaClosed = await adaStream.close();
  const watched = {
    [ada.agentId]: (adaClosed - adaStream.opened()) / 1000,
    [bob.agentId]: (bobClosed - bobStream.opened()) / 1000,
  };

  // Readable while live, by the host and the moderator; nobody else.
  const live = await waitFor('the streams closed in the report', async () => {
    const report = await moderator.events.report(event.id);
    const seen = report.attendance.byAgent.filter((a) => a.agentId in watched);
    return seen.length === 2 && seen.every((a) => Math.abs(a.minutes * 60 - watched[a.agentId]!) <= 1)
      ? report
      : undefined;
  });
  expect(live.status).toBe('live');
  expect(await refusal(cyd.events.report(event.id))).toEqual({ status: 403, code: 'role.forbidden' });
  await host.events.end(event.id);
  const report = await host.events.report(event.id);
  expect(report.status).toBe('past');

  expect(report.registrations).toMatchObject({ total: 4, byTier: { general: 3, vip: 1 } });
  expect(report.registrations.overTime.at(-1)?.total).toBe(4);
  expect(report.codes).toEqual([{ code: 'HALF', uses: 1 }]);
  // Revenue is what the ledger's entries say the host was paid.
  const credits = (await host.ledger.entries({ limit: 100 })).items.filter(
    (entry) => entry.type === 'EVENT_TICKET' && entry.eventId === event.id,
  );
  const paid = credits.reduce((sum, entry) => sum + BigInt(entry.amount), 0n);
  expect(paid).toBe(6500n);
  expect(report.revenue).toEqual([{ asset: 'USDC', network: null, amount: paid.toString() }]);
  expect(report.refunds.count).toBe(0);

  const { attendance } = report;
  expect(attendance.present).toBe(4);
  expect(attendance.peakConcurrent).toBe(4);
  expect(attendance.viewersOverTime.length).toBeGreaterThan(2);
  for (const agent of [ada, bob]) {
    const seen = attendance.byAgent.find((a) => a.agentId === agent.agentId)!;
    expect(Math.abs(seen.minutes * 60 - watched[agent.agentId]!)).toBeLessThanOrEqual(1);
  }
  expect(attendance.byAgent.map((a) => a.agentId)).toEqual([
    ada.agentId,
    bob.agentId,
    ...attendance.byAgent.slice(2).map((a) => a.agentId),
  ]);
  expect(attendance.byAgent.find((a) => a.agentId === ada.agentId)!.handle).toMatch(/^ada_/);
  for (const writer of [cyd, dee])
    expect(attendance.byAgent.find((a) => a.agentId === writer.agentId)).toMatchObject({ minutes: 0 });

  expect(report.questions).toMatchObject({ asked: 2, promoted: 1, upvotes: 2 });
  expect(report.questions.top.map((q) => q.id)).toEqual([first.id, second.id]);
  expect(report.polls).toEqual([
    expect.objectContaining({
      id: poll.id,
      ballots: 3,
      options: [
        expect.objectContaining({ label: 'Yes', votes: 2 }),
        expect.objectContaining({ label: 'No', votes: 1 }),
      ],
    }),
  ]);
  expect(report.stage.messages).toBe(2);

  // The CSV: the host's only; one line per ticket holder.
  expect(await refusal(moderator.events.reportCsv(event.id))).toEqual({
    status: 403,
    code: 'role.forbidden',
  });
  const csv = await host.events.reportCsv(event.id);
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe('agentId,handle,tier,code,paid,refunded,minutesPresent,questionsAsked,votesCast');
  expect(lines).toHaveLength(5);
  const bobLine = lines.find((line) => line.startsWith(`${bob.agentId},`))!;
  expect(bobLine.split(',').slice(2, 6)).toEqual(['general', 'HALF', '500', '0']);
  const cydLine = lines.find((line) => line.startsWith(`${cyd.agentId},`))!;
  expect(cydLine.split(',').slice(-2)).toEqual(['1', '1']);
  return { eventId: event.id, host };
}

describe('the report (distributed)', () => {
  let topology: Topology;
  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true', ...PRESENCE } });
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('reports a whole event: counts, minutes present, peak viewers, revenue as the ledger has it, the CSV; `townhall report --html` draws it, in Chromium', async () => {
    const { eventId, host } = await aWholeEvent(() => topology.client());
    const home = await mkdtemp(join(tmpdir(), 'townhall-report-html-'));
    try {
      await saveKeyFile(join(home, '.townhall', 'key.json'), host.key);
      const file = join(home, 'report.html');
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, ['apps/cli/dist/main.js', 'report', eventId, '--html', file], {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env['PATH'] ?? '',
            ...compileCacheEnv(),
            HOME: home,
            TOWNHALL_URL: topology.baseUrl,
          },
          stdio: 'ignore',
        });
        child.on('exit', resolve);
      });
      expect(code).toBe(0);
      const context = await chromium.launchPersistentContext(join(home, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(pathToFileURL(file).href);
        // A chart for registrations, viewers, tiers and the poll at least, each drawn.
        expect(await page.locator('svg').count()).toBeGreaterThanOrEqual(4);
        expect(await page.locator('svg :is(path, rect, polyline, circle)').count()).toBeGreaterThan(4);
        expect(await page.textContent('body')).toContain('How were the numbers made?');
      } finally {
        await context.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('the report (standalone)', () => {
  const AUDIENCE = 'https://report.townhall.test';
  let standalone: StandaloneProcess;
  beforeAll(async () => {
    standalone = await StandaloneProcess.start({
      PUBLIC_BASE_URL: AUDIENCE,
      LEDGER_FAUCET: 'true',
      ...PRESENCE,
    });
  });
  afterAll(async () => {
    await standalone?.stop();
  });

  it('reports a whole event: counts, minutes present, peak viewers, revenue as the ledger has it, the CSV', async () => {
    await aWholeEvent(() => new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE }));
  });
});

// What one agent may host at once, the order events are listed in, and public reads that cannot be
// made new to the read cache: proven from outside, against a distributed topology and the
// standalone process alike.
import type { EventFieldsInput, EventView } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { freePort, StandaloneProcess, Topology, waitFor } from '@townhall/testing';

const HOUR = 3_600_000;
/** Standalone signs for a fixed audience: its port is known only once it runs. */
const STANDALONE_AUDIENCE = 'http://townhall.abuse-limits.test';
/**
 * What these tests send from one address and one agent in a few seconds is over the per-second
 * budgets (what they prove is not those): the budgets are raised, the read cache kept a minute so
 * that only a change (not its one-second age) ends an entry.
 */
const ENV = {
  RATE_LIMIT_READS_PER_SECOND: '100000',
  RATE_LIMIT_WRITES_PER_SECOND: '1000',
  RATE_LIMIT_WRITE_BURST: '1000',
  READ_CACHE_MAX_AGE_MS: '60000',
};

function anEvent(title: string, hoursAhead = 24): EventFieldsInput {
  const startsAt = new Date(Date.now() + hoursAhead * HOUR);
  return {
    title,
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 50,
  };
}

async function codeOf(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    if (error instanceof TownhallError) return `${error.status} ${error.code}`;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** The value of one series as Prometheus prints it (0 before its first count). */
async function readCacheCount(probeUrl: string, outcome: 'hit' | 'miss'): Promise<number> {
  const text = await (await fetch(`${probeUrl}/metrics`)).text();
  const series = `townhall_read_cache_requests_total{outcome="${outcome}"}`;
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

interface Mode {
  baseUrl: string;
  audience: string;
  /** The gateway's probe port (its /metrics). */
  probeUrl: string;
  client(): AgentClient;
}

describe('abuse limits from outside: live objects per agent, ranking, public read parameters', () => {
  let topology: Topology;
  let standalone: StandaloneProcess;
  const modes: Record<'distributed' | 'standalone', Mode> = {} as never;

  beforeAll(async () => {
    const standaloneProbe = await freePort();
    [topology, standalone] = await Promise.all([
      Topology.start({ env: ENV }),
      StandaloneProcess.start({ ...ENV, PUBLIC_BASE_URL: STANDALONE_AUDIENCE }, 0, {
        args: ['--probe-port', String(standaloneProbe)],
      }),
    ]);
    modes.distributed = {
      baseUrl: topology.baseUrl,
      audience: topology.baseUrl,
      probeUrl: `http://127.0.0.1:${topology.gateway.env['PROBE_PORT']}`,
      client: () => topology.client(),
    };
    modes.standalone = {
      baseUrl: standalone.baseUrl,
      audience: STANDALONE_AUDIENCE,
      probeUrl: `http://127.0.0.1:${standaloneProbe}`,
      client: () => new AgentClient({ baseUrl: standalone.baseUrl, audience: STANDALONE_AUDIENCE }),
    };
  });
  afterAll(async () => {
    await Promise.all([topology?.stop(), standalone?.stop()]);
  });

  describe.each(['distributed', 'standalone'] as const)('%s', (name) => {
    it('refuses a 51st scheduled event of one agent (409 event.limit_reached), and of 6 creates at once for 2 places exactly 2 win', async () => {
      const { client } = modes[name];
      const host = client();
      const events: EventView[] = [];
      for (let index = 0; index < 50; index += 1) events.push(await host.events.create(anEvent(`E${index}`)));
      expect(await codeOf(host.events.create(anEvent('The 51st')))).toBe('409 event.limit_reached');
      // Another agent is not held back by this one's events.
      expect((await client().events.create(anEvent('Elsewhere'))).status).toBe('scheduled');

      // Cancelled and ended events free their places; six creates race for the two.
      await host.events.cancel(events[0]!.id);
      await host.events.start(events[1]!.id);
      await host.events.end(events[1]!.id);
      const racing = await Promise.allSettled(
        Array.from({ length: 6 }, (_, index) => host.events.create(anEvent(`Racer ${index}`))),
      );
      expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
      for (const outcome of racing)
        if (outcome.status === 'rejected')
          expect(await codeOf(Promise.reject(outcome.reason))).toBe('409 event.limit_reached');
      const held = await host.events.list({ hostId: host.agentId, status: 'scheduled', limit: 100 });
      expect(held.items).toHaveLength(50);
    });

    it('lists events someone holds a ticket in first, on GET /events and on the index page', async () => {
      const { client, baseUrl } = modes[name];
      const host = client();
      const title = `Ranked ${Date.now()}`;
      const early = await host.events.create(anEvent(`${title} early`, 2));
      const late = await host.events.create(anEvent(`${title} late`, 3));
      const listed = async () =>
        (await host.events.list({ hostId: host.agentId })).items.map((event) => event.id);
      expect(await listed()).toEqual([early.id, late.id]);
      await client().tickets.rsvp(late.id);
      await waitFor('the ticket counted', async () => ((await listed())[0] === late.id ? true : undefined));
      expect(await listed()).toEqual([late.id, early.id]);
      const index = await (await fetch(`${baseUrl}/`, { headers: { accept: 'text/html' } })).text();
      expect(index.indexOf(`${title} late`)).toBeGreaterThan(-1);
      expect(index.indexOf(`${title} late`)).toBeLessThan(index.indexOf(`${title} early`));
    });

    it('refuses 1,000 distinct unknown parameters before any service, and reads one recording page once however its parameters are ordered or spelled', async () => {
      const { client, baseUrl, probeUrl } = modes[name];
      const host = client();
      const event = await host.events.create(anEvent('Recorded'));
      await host.events.start(event.id);
      for (const body of ['One', 'Two', 'Three']) await host.stage.post(event.id, body);
      await host.events.end(event.id);
      await waitFor('the recording', () => host.recordings.draft(event.id).catch(() => undefined));
      await host.recordings.publish(event.id, { summary: 'Paged' });
      const first = await waitFor('the published recording', () =>
        host.recordings.get(event.id, { limit: 1 }).catch(() => undefined),
      );
      const cursor = first.nextCursor!;
      expect(first.transcript.stage.map((message) => message.body)).toEqual(['One']);

      const recording = `${baseUrl}/events/${event.id}/recording`;
      const before = {
        miss: await readCacheCount(probeUrl, 'miss'),
        hit: await readCacheCount(probeUrl, 'hit'),
      };
      for (let n = 0; n < 1_000; n += 1) {
        const refused = await fetch(`${recording}?n=${n}`);
        const problem = (await refused.json()) as { code: string; errors: Array<{ field: string }> };
        if (refused.status !== 400 || problem.code !== 'request.unknown_parameter')
          throw new Error(`?n=${n}: ${refused.status} ${problem.code}`);
        expect(problem.errors[0]!.field).toBe('n');
      }
      expect(await readCacheCount(probeUrl, 'miss')).toBe(before.miss); // not one service call
      expect(await readCacheCount(probeUrl, 'hit')).toBe(before.hit);

      const variants = [
        `limit=1&cursor=${cursor}`,
        `cursor=${cursor}&limit=1`,
        `limit=01&cursor=${encodeURIComponent(cursor).replace(/[A-Za-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
        `cursor=${cursor}&limit=1&`,
      ];
      const bodies = new Set<string>();
      for (const query of variants) {
        const response = await fetch(`${recording}?${query}`);
        expect([query, response.status]).toEqual([query, 200]);
        bodies.add(await response.text());
      }
      expect(bodies.size).toBe(1);
      expect(JSON.parse([...bodies][0]!).transcript.stage.map((m: { body: string }) => m.body)).toEqual([
        'Two',
      ]);
      // One read reached the service; the other three were the same entry.
      expect((await readCacheCount(probeUrl, 'miss')) - before.miss).toBe(1);
      expect((await readCacheCount(probeUrl, 'hit')) - before.hit).toBe(3);

      // A page for people sends a link with parameters of its own to its one address, once and for good.
      for (const [path, address] of [
        [`/events/${event.id}/watch?utm_source=feed&n=1`, `/events/${event.id}/watch`],
        ['/?utm_source=feed', '/'],
      ]) {
        const response = await fetch(`${baseUrl}${path}`, { redirect: 'manual' });
        expect([path, response.status, response.headers.get('location')]).toEqual([path, 301, address]);
      }
      // The same one rule on every other public read: the calendar, an event, the list.
      for (const path of [`/events/${event.id}/calendar.ics?n=1`, `/events/${event.id}?n=1`, `/events?n=1`]) {
        const response = await fetch(`${baseUrl}${path}`, { headers: { accept: 'application/json' } });
        expect([path, response.status]).toEqual([path, 400]);
        expect(await response.text()).toContain('request.unknown_parameter');
      }
    });
  });
});

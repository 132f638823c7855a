import type { EventFieldsInput } from '@townhall/contracts';
import { AgentClient, type LiveEvent } from '@townhall/sdk';
import { LiveReader, refusal, StandaloneProcess, Topology } from '@townhall/testing';

/*
 * docs/product.md "Live stage, Q&A, polls": who holds a ticket, who is refunded and who waits is
 * not public. The anonymous live stream, live or replayed from `?lastEventId=0`, carries tickets
 * and waitlist entries as counts only; a signed stream carries its own agent's records whole, and
 * the host's every one. And a gateway serves at most LIVE_STREAMS_PER_EVENT streams of one event:
 * the next is 503 with Retry-After. Both modes: a distributed topology, and standalone.
 */

const HOUR = 3_600_000;
const PER_EVENT = 5;
const CAPS = { LIVE_STREAMS_PER_EVENT: String(PER_EVENT), LIVE_STREAMS_TOTAL: '1000' };

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Who came',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 1,
    ...overrides,
  };
}

const RECORD = /^townhall\.(ticket|refund|waitlist)\./;
/** The seven records of the scenario: two tickets issued, one given back, two joins, a seat accepted, a leave. */
const RECORDS = 7;
const recordsOf = (messages: LiveEvent[]) => messages.filter((message) => RECORD.test(message.type));
const dataOf = (message: LiveEvent) => message.event.data as Record<string, unknown>;

/** Waits until `reader` holds every record of the scenario. */
async function allRecords(reader: LiveReader): Promise<LiveEvent[]> {
  for (let count = RECORDS; ; count += 1) {
    const received = await reader.waitFor(count);
    const records = recordsOf(received);
    if (records.length >= RECORDS) return records;
  }
}

function scenario(mode: () => { baseUrl: string; client: () => AgentClient }) {
  it('tells the anonymous stream and its replay how many, never who; a signed stream its own records, the host all', async () => {
    const { client } = mode();
    const host = client();
    const event = await host.events.create(anEvent());
    const [holder, first, second] = [client(), client(), client()];
    const agents = [holder.agentId, first.agentId, second.agentId];
    const anonymous = await LiveReader.open(client(), event.id);
    const own = await LiveReader.open(holder, event.id, undefined, { signed: true });
    const hosting = await LiveReader.open(host, event.id, undefined, { signed: true });
    try {
      // A ticket, two agents in line, the ticket given back (the first in line gets the seat), a leave.
      await holder.tickets.rsvp(event.id);
      await first.waitlist.join(event.id);
      await second.waitlist.join(event.id);
      await holder.tickets.release(event.id);
      await second.waitlist.leave(event.id);

      const seen = await allRecords(anonymous);
      expect(seen.map((message) => message.type).sort()).toEqual([
        'townhall.ticket.cancelled',
        'townhall.ticket.issued',
        'townhall.ticket.issued',
        'townhall.waitlist.accepted',
        'townhall.waitlist.joined',
        'townhall.waitlist.joined',
        'townhall.waitlist.left',
      ]);
      for (const message of seen) {
        expect(Object.keys(dataOf(message)).sort()).toEqual(['counts', 'eventId', 'tierId']);
        expect(dataOf(message)).toMatchObject({ eventId: event.id, tierId: 'general' });
      }
      expect(seen.filter((m) => m.type === 'townhall.waitlist.joined').map(dataOf)).toEqual([
        { eventId: event.id, tierId: 'general', counts: { waiting: 1 } },
        { eventId: event.id, tierId: 'general', counts: { waiting: 1 } },
      ]);
      const anonymousText = JSON.stringify(anonymous.received);
      for (const agent of agents) expect(anonymousText).not.toContain(agent);

      // The holder's signed stream: its own ticket whole (issued and given back), nobody else's.
      const mine = await allRecords(own);
      const holderOf = (message: LiveEvent) => dataOf(message)['holderId'] ?? dataOf(message)['agentId'];
      expect(mine.filter((m) => holderOf(m) !== undefined).map((m) => [m.type, holderOf(m)])).toEqual([
        ['townhall.ticket.issued', holder.agentId],
        ['townhall.ticket.cancelled', holder.agentId],
      ]);
      expect(dataOf(mine[0]!)).toMatchObject({ status: 'active', price: '0' });
      const ownText = JSON.stringify(own.received);
      for (const agent of [first.agentId, second.agentId]) expect(ownText).not.toContain(agent);

      // The host's: every record whole.
      const all = await allRecords(hosting);
      expect(new Set(all.map(holderOf))).toEqual(new Set(agents));
    } finally {
      await Promise.all([anonymous.close(), own.close(), hosting.close()]);
    }

    // Replays from the start follow the same rule, per viewer.
    const replay = await LiveReader.open(client(), event.id, '0');
    const ownReplay = await LiveReader.open(holder, event.id, '0', { signed: true });
    try {
      const replayed = await allRecords(replay);
      const replayText = JSON.stringify(replay.received);
      for (const agent of agents) expect(replayText).not.toContain(agent);
      expect(replayed.every((message) => 'counts' in dataOf(message))).toBe(true);
      const ownReplayed = await allRecords(ownReplay);
      expect(ownReplayed.filter((m) => dataOf(m)['holderId'] === holder.agentId)).toHaveLength(2);
      const ownReplayText = JSON.stringify(ownReplay.received);
      for (const agent of [first.agentId, second.agentId]) expect(ownReplayText).not.toContain(agent);
    } finally {
      await Promise.all([replay.close(), ownReplay.close()]);
    }
  });

  it('refuses the live streams of one event past LIVE_STREAMS_PER_EVENT: 503 live.event_at_capacity, Retry-After', async () => {
    const { baseUrl, client } = mode();
    const host = client();
    const [full, other] = await Promise.all([host.events.create(anEvent()), host.events.create(anEvent())]);
    const readers = [];
    try {
      for (let i = 0; i < PER_EVENT; i++) readers.push(await LiveReader.open(client(), full.id));
      const refused = await fetch(`${baseUrl}/events/${full.id}/live`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(await refused.json()).toMatchObject({ status: 503, code: 'live.event_at_capacity' });
      // Signed or not: a key costs nothing to make.
      expect(await refusal(LiveReader.open(host, full.id, undefined, { signed: true }))).toEqual({
        status: 503,
        code: 'live.event_at_capacity',
      });

      // Another event has room; and a stream that closes gives its place back.
      readers.push(await LiveReader.open(client(), other.id));
      await readers.shift()!.close();
      let reopened: LiveReader | undefined;
      for (let i = 0; i < 50 && !reopened; i++) {
        reopened = await LiveReader.open(client(), full.id).catch(() => undefined);
        if (!reopened) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(reopened).toBeDefined();
      readers.push(reopened!);
    } finally {
      await Promise.all(readers.map((reader) => reader.close()));
    }
  });
}

describe('the live stream keeps tickets and waitlist entries private (distributed)', () => {
  let topology: Topology;
  beforeAll(async () => {
    topology = await Topology.start({ env: CAPS });
  });
  afterAll(async () => {
    await topology?.stop();
  });
  scenario(() => ({ baseUrl: topology.baseUrl, client: () => topology.client() }));
});

describe('the live stream keeps tickets and waitlist entries private (standalone)', () => {
  const AUDIENCE = 'https://live-privacy.townhall.test';
  let standalone: StandaloneProcess;
  beforeAll(async () => {
    standalone = await StandaloneProcess.start({ PUBLIC_BASE_URL: AUDIENCE, ...CAPS });
  });
  afterAll(async () => {
    await standalone?.stop();
  });
  scenario(() => ({
    baseUrl: standalone.baseUrl,
    client: () => new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE }),
  }));
});

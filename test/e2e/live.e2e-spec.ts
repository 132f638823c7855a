import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { CloudEvent, EventFieldsInput, EventView } from '@townhall/contracts';
import { SseParser, generateAgentKey, type AgentClient, type LiveEvent } from '@townhall/sdk';
import {
  APPS,
  AppProcess,
  DomainEventTap,
  LiveReader,
  REDIS_URL,
  Topology,
  freePort,
  natsEnvOf,
  problemOf,
  waitFor,
} from '@townhall/testing';

const HOUR = 3_600_000;
const HEARTBEAT_MS = 200;
const CLIENT_BUFFER = 5;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Live townhall',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 100,
    ...overrides,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StalledClient {
  response: IncomingMessage;
  /** Starts reading at last: what the socket held, until the stream ends (or the timeout). */
  readToEnd(timeoutMs: number): Promise<{ text: string; ended: boolean }>;
}

/** A client that connects and then stops reading: its socket fills up. */
function openWithoutReading(url: string): Promise<StalledClient> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { accept: 'text/event-stream' } }, (response) => {
      response.pause();
      resolve({
        response,
        readToEnd: (timeoutMs) =>
          new Promise((done) => {
            let text = '';
            const timer = setTimeout(() => done({ text, ended: false }), timeoutMs);
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            // A cut connection ends as 'aborted' (an error) or 'close'; either way it is over.
            response.on('error', () => undefined);
            response.once('close', () => {
              clearTimeout(timer);
              done({ text, ended: true });
            });
            response.resume();
          }),
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** Reads a raw SSE body until `until` matches what arrived (or the body ends). */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (text: string) => boolean,
  timeoutMs = 5_000,
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    void reader.cancel();
  }, timeoutMs);
  try {
    while (!until(text)) {
      const chunk = await reader.read();
      if (chunk.done) {
        ended = true;
        break;
      }
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
  }
  return { text, ended: ended && !timedOut };
}

const ids = (messages: LiveEvent[]) => messages.map((message) => Number(message.id));
const types = (messages: LiveEvent[]) => messages.map((message) => message.type);

describe('GET /events/{id}/live, end to end', () => {
  let topology: Topology;
  let host: AgentClient;
  let tap: DomainEventTap;

  beforeAll(async () => {
    topology = await Topology.start({
      env: {
        LIVE_HEARTBEAT_MS: String(HEARTBEAT_MS),
        LIVE_CLIENT_BUFFER: String(CLIENT_BUFFER),
        // Long enough that only a domain event or a write can make the gateways read again.
        READ_CACHE_MAX_AGE_MS: '60000',
      },
    });
    host = topology.client();
    tap = await DomainEventTap.start(topology.nats, ['townhall.>']);
  });
  afterAll(async () => {
    await tap?.stop();
    await topology?.stop();
  });

  /** Waits until a domain event about `eventId` is in JetStream (services publish after they answer). */
  function published(eventId: string, type: string): Promise<unknown> {
    return tap.waitFor(`${type} about ${eventId}`, () =>
      tap.about(eventId).some((event) => event.type === type),
    );
  }

  /** Schedules an event and waits for its `scheduled` domain event, so that a stream opened next starts after it. */
  async function schedule(overrides: Partial<EventFieldsInput> = {}): Promise<EventView> {
    const event = await host.events.create(anEvent(overrides));
    await published(event.id, 'townhall.event.scheduled');
    return event;
  }

  it('streams lifecycle changes and RSVPs of one event, in order, with increasing ids, and nothing else', async () => {
    const event = await schedule();
    const other = await schedule();
    const reader = await LiveReader.open(topology.client(), event.id);
    const attendee = topology.client();
    try {
      // Each change waits for the previous one to arrive: two services publish them, and only
      // what JetStream received first can come first.
      await attendee.tickets.rsvp(event.id);
      await reader.waitFor(1);
      await host.events.update(other.id, { title: 'Another townhall' });
      await attendee.tickets.rsvp(other.id);
      await host.events.start(event.id);
      await reader.waitFor(2);
      await host.events.start(other.id);
      await host.events.end(event.id);
      await host.events.end(other.id);
      const received = await reader.waitFor(3);

      expect(types(received)).toEqual([
        'townhall.ticket.issued',
        'townhall.event.started',
        'townhall.event.ended',
      ]);
      for (const message of received) {
        expect(message.id).toMatch(/^\d+$/);
        expect(message.event).toMatchObject({ specversion: '1.0', subject: event.id, type: message.type });
      }
      // Anonymous: a ticket is a count, not its holder (live-privacy.e2e-spec.ts: who sees what).
      expect(received[0]!.event.data).toEqual({
        eventId: event.id,
        tierId: 'general',
        counts: { tickets: 1 },
      });
      expect((received[1]!.event.data as EventView).status).toBe('live');
      expect((received[2]!.event.data as EventView).status).toBe('past');
      const sequence = ids(received);
      expect([...sequence].sort((a, b) => a - b)).toEqual(sequence);
      expect(new Set(sequence).size).toBe(sequence.length);

      // The other event's changes (published after ours) would have arrived by now.
      await published(other.id, 'townhall.event.ended');
      await sleep(300);
      expect(reader.received).toHaveLength(3);
    } finally {
      await reader.close();
    }
  });

  it('resumes with Last-Event-ID: exactly the missed messages, then live ones', async () => {
    const event = await schedule();
    const watcher = topology.client();
    const first = await LiveReader.open(watcher, event.id);
    await host.events.update(event.id, { title: 'One' });
    await first.waitFor(1);
    await topology.client().tickets.rsvp(event.id);
    await first.waitFor(2);
    await first.close();
    const lastId = first.received[1]!.id;

    // Three changes while disconnected, all in JetStream before the reconnect, so they are replayed.
    await host.events.update(event.id, { title: 'Two' });
    await host.events.update(event.id, { title: 'Three' });
    await host.events.start(event.id);
    await published(event.id, 'townhall.event.started');

    const second = await LiveReader.open(watcher, event.id, lastId);
    try {
      const replayed = await second.waitFor(3);
      expect(types(replayed)).toEqual([
        'townhall.event.updated',
        'townhall.event.updated',
        'townhall.event.started',
      ]);
      expect(replayed.map((m) => (m.event.data as EventView).title)).toEqual(['Two', 'Three', 'Three']);
      await host.events.end(event.id);
      const all = await second.waitFor(4);
      expect(all[3]!.type).toBe('townhall.event.ended');
      const sequence = [Number(lastId), ...ids(all)];
      expect([...sequence].sort((a, b) => a - b)).toEqual(sequence);
      expect(new Set(sequence).size).toBe(sequence.length);
      await sleep(300);
      expect(second.received).toHaveLength(4);
    } finally {
      await second.close();
    }

    // ?lastEventId= does the same for a client that cannot set headers; 0 replays everything kept.
    const all = (await fetch(`${topology.baseUrl}/events/${event.id}/live?lastEventId=0`)).body!.getReader();
    const { text } = await readUntil(all, (body) => body.includes('townhall.event.ended'));
    await all.cancel();
    expect([...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1])).toEqual([
      'townhall.event.scheduled',
      'townhall.event.updated',
      'townhall.ticket.issued',
      'townhall.event.updated',
      'townhall.event.updated',
      'townhall.event.started',
      'townhall.event.ended',
    ]);
  });

  it('disconnects a client that stops reading, without holding up the others', async () => {
    // Loopback sockets absorb about 4 MB before a writer notices a reader that stopped, so the
    // event is made large (50 agenda items naming 20 speakers): every update is some 60 KB.
    const speakers = Array.from({ length: 20 }, () => generateAgentKey().agentId);
    const agenda = Array.from({ length: 50 }, (_, i) => ({
      title: `${i} ${'x'.repeat(140)}`,
      speakerIds: speakers,
    }));
    const event = await schedule({ speakers, agenda });
    const slow = await openWithoutReading(`${topology.baseUrl}/events/${event.id}/live`);
    const fast = await LiveReader.open(topology.client(), event.id);
    const changes = 120;
    try {
      for (let i = 0; i < changes; i++) await host.events.update(event.id, { description: String(i) });
      const received = await fast.waitFor(changes, 3_000);
      expect(received.map((m) => (m.event.data as EventView).description)).toEqual(
        Array.from({ length: changes }, (_, i) => String(i)),
      );
      // Far more than LIVE_CLIENT_BUFFER messages waited for the slow client: it was cut off. What
      // it reads now is what its socket held, then the end of the stream.
      const { text, ended } = await slow.readToEnd(5_000);
      expect(ended).toBe(true);
      expect(topology.gateway.logs.some((line) => line.includes('live stream client too slow'))).toBe(true);
      const kept = new SseParser().push(text);
      expect(kept.length).toBeLessThan(changes);

      // Resuming from the last message it got gives exactly the rest.
      const lastId = kept.at(-1)?.id;
      const rest = await LiveReader.open(topology.client(), event.id, lastId);
      const resumed = await rest.waitFor(changes - kept.length);
      await rest.close();
      expect(
        [
          ...kept.map((m) => JSON.parse(m.data) as CloudEvent<EventView>),
          ...resumed.map((m) => m.event as CloudEvent<EventView>),
        ]
          .filter((e) => e.type === 'townhall.event.updated')
          .map((e) => e.data.description),
      ).toEqual(Array.from({ length: changes }, (_, i) => String(i)));
    } finally {
      slow.response.destroy();
      await fast.close();
    }
  });

  it('sends retry: on connect and a heartbeat comment while idle', async () => {
    const event = await schedule();
    const started = Date.now();
    const response = await fetch(`${topology.baseUrl}/events/${event.id}/live`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const reader = response.body!.getReader();
    const { text } = await readUntil(reader, (body) => body.includes(': keep-alive\n\n'));
    await reader.cancel();
    expect(text.startsWith('retry: 2000\n\n')).toBe(true);
    expect(text).toContain(': keep-alive\n\n');
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS * 10);
  });

  it('answers 404 for an unknown event and 400 for a malformed Last-Event-ID, as problems', async () => {
    const client = topology.client();
    const first = (iterable: AsyncIterable<LiveEvent>) => iterable[Symbol.asyncIterator]().next();

    const unknown = await problemOf(first(client.events.live('00000000-0000-4000-8000-000000000000')));
    expect(unknown).toMatchObject({ status: 404, code: 'event.not_found' });

    const event = await schedule();
    const malformed = await problemOf(first(client.events.live(event.id, { lastEventId: 'abc' })));
    expect(malformed).toMatchObject({ status: 400, code: 'validation.failed' });
    expect(malformed.problem.errors?.[0]?.field).toBe('Last-Event-ID');

    const raw = await fetch(`${topology.baseUrl}/events/${event.id}/live?lastEventId=-1`);
    expect(raw.status).toBe(400);
    expect(raw.headers.get('content-type')).toContain('application/problem+json');
    expect(await raw.json()).toMatchObject({ code: 'validation.failed' });
  });

  it('gives the same ids on every gateway replica, and a replica ends its streams when it stops', async () => {
    const port = await freePort();
    const replicaUrl = `http://127.0.0.1:${port}`;
    const replica = AppProcess.start(APPS.gateway, {
      ...natsEnvOf(topology.nats, 'auth-gateway'),
      REDIS_URL,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: topology.baseUrl,
      LIVE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    });
    try {
      await waitFor('the second gateway', async () =>
        (await fetch(`${replicaUrl}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
      );
      const event = await schedule();
      const viaFirst = await LiveReader.open(topology.client(), event.id);
      await host.events.update(event.id, { title: 'Seen by both' });
      const [seen] = await viaFirst.waitFor(1);
      await viaFirst.close();

      // Resume on the other replica with the first replica's id: no coordination needed.
      await host.events.update(event.id, { title: 'Missed' });
      await host.events.start(event.id);
      await published(event.id, 'townhall.event.started');
      const viaReplica = await fetch(`${replicaUrl}/events/${event.id}/live`, {
        headers: { 'last-event-id': seen!.id },
      });
      const stream = viaReplica.body!.getReader();
      const caughtUp = await readUntil(stream, (body) => body.includes('townhall.event.started'));
      expect([...caughtUp.text.matchAll(/^event: (.+)$/gm)].map((match) => match[1])).toEqual([
        'townhall.event.updated',
        'townhall.event.started',
      ]);
      expect(Number(/^id: (\d+)$/m.exec(caughtUp.text)?.[1])).toBeGreaterThan(Number(seen!.id));

      // SIGTERM: the open stream is ended politely (a clean end of body) and the process exits at once.
      const stopping = Date.now();
      const exit = replica.stop();
      const rest = await readUntil(stream, () => false);
      expect(rest.ended).toBe(true);
      expect(await exit).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(5_000);
    } finally {
      await replica.stop();
    }
  });

  it('serves public event reads from each gateway cache, and a change is visible on the next read', async () => {
    const port = await freePort();
    const probePort = await freePort();
    const replicaUrl = `http://127.0.0.1:${port}`;
    const replica = AppProcess.start(APPS.gateway, {
      ...natsEnvOf(topology.nats, 'auth-gateway'),
      REDIS_URL,
      PORT: String(port),
      PROBE_PORT: String(probePort),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: topology.baseUrl,
      READ_CACHE_MAX_AGE_MS: '60000',
    });
    const hits = async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
      return Number(
        /^townhall_read_cache_requests_total\{outcome="hit"[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0,
      );
    };
    const title = async (base: string, id: string) =>
      ((await (await fetch(`${base}/events/${id}`)).json()) as EventView).title;
    try {
      await waitFor('the second gateway', async () =>
        (await fetch(`${replicaUrl}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
      );
      const event = await schedule({ title: 'Before' });
      for (const base of [topology.baseUrl, replicaUrl]) expect(await title(base, event.id)).toBe('Before');
      const before = await hits();
      expect(await title(replicaUrl, event.id)).toBe('Before');
      expect(await hits()).toBe(before + 1); // the second read came from the replica's memory

      // The gateway that took the write shows it on the very next read...
      await host.events.update(event.id, { title: 'After' });
      expect(await title(topology.baseUrl, event.id)).toBe('After');
      // ...and the other replica as soon as the domain event reached it, long before its 60 s.
      const changed = Date.now();
      await waitFor('the replica to show the change', async () =>
        (await title(replicaUrl, event.id)) === 'After' ? true : undefined,
      );
      expect(Date.now() - changed).toBeLessThan(2_000);

      // Started: the same on both, each on its next read.
      await host.events.start(event.id);
      expect(await (await fetch(`${topology.baseUrl}/events/${event.id}`)).json()).toMatchObject({
        status: 'live',
      });
      await waitFor('the replica to show the start', async () =>
        ((await (await fetch(`${replicaUrl}/events/${event.id}`)).json()) as EventView).status === 'live'
          ? true
          : undefined,
      );

      // A question and a stage message, each on the next read of the gateway that took it.
      const asker = topology.client();
      await asker.tickets.rsvp(event.id);
      const questions = `${topology.baseUrl}/events/${event.id}/questions?sort=new`;
      expect((await (await fetch(questions)).json()) as { items: unknown[] }).toMatchObject({ items: [] });
      const question = await asker.questions.submit(event.id, 'Visible at once?');
      expect(await (await fetch(questions)).json()).toMatchObject({ items: [{ id: question.id }] });
      const stage = `${topology.baseUrl}/events/${event.id}/stage`;
      await fetch(stage);
      await host.stage.post(event.id, 'Hello, room');
      expect(await (await fetch(stage)).json()).toMatchObject({ items: [{ body: 'Hello, room' }] });

      // A shared cache revalidates: the same reply answers 304 to its ETag.
      const cached = await fetch(stage);
      expect(cached.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=1, must-revalidate');
      const revalidated = await fetch(stage, { headers: { 'if-none-match': cached.headers.get('etag')! } });
      expect(revalidated.status).toBe(304);
    } finally {
      await replica.stop();
    }
  });
});

import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { jetstream } from '@nats-io/jetstream';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignatureVerifier } from '@townhall/auth';
import { DomainError, Events, type CloudEvent, type Contract, type MessageMeta } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { ensureTownhallStream, InProcessEventLog } from '@townhall/platform/service';
import { PrivateNatsServer, waitFor } from '@townhall/testing';
import type { z } from 'zod';
import { MemoryNonceStore } from '../src/auth/nonce-store.js';
import type { ServerTimeouts } from '../src/config.js';
import { createGateway } from '../src/gateway.js';
import { startInProcessLiveStream } from '../src/live/in-process-live-stream.js';
import { startLiveStream, type LiveStream, type LiveStreamSettings } from '../src/live/live-stream.js';

/**
 * The limits of one client (docs/gateway.md "Limits of one client") on a real gateway over loopback:
 * live streams per client address, the replay of one resume, and the server's timeouts. The
 * live stream follows standalone mode's in-process event log, and JetStream for the resume.
 */

const EVENT = 'e1';
const ME = 'ip:127.0.0.1';
const logger = createLogger('live-limits-test', 'silent');

/**
 * The events service as far as the live route needs it: e1 exists. A request whose id starts
 * with `slow-` is answered 30 ms after it arrives, so a test can leave while it waits.
 */
class OneEvent implements ServiceClient {
  private readonly arrivals = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  /** Resolves once the request with this id has asked for its event. */
  arrival(requestId: string): Promise<void> {
    return this.entry(requestId).promise;
  }

  async send<C extends Contract<z.ZodType, unknown>>(contract: C, data: unknown, meta: MessageMeta) {
    if (contract.pattern !== Events.get.pattern) throw new Error(`unexpected ${contract.pattern}`);
    this.entry(meta.requestId).resolve();
    if (meta.requestId.startsWith('slow-')) await sleep(30);
    if ((data as { eventId: string }).eventId !== EVENT)
      throw new DomainError('event.not_found', 'No such event');
    return { id: EVENT } as never;
  }

  async close(): Promise<void> {}

  private entry(requestId: string) {
    let entry = this.arrivals.get(requestId);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      entry = { promise, resolve };
      this.arrivals.set(requestId, entry);
    }
    return entry;
  }
}

/** One request on a connection of its own, read raw: what a misbehaving client sees. */
class RawExchange {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  private received = '';
  private readonly waiters: Array<() => void> = [];

  constructor(port: number, localAddress = '127.0.0.1') {
    this.socket = tcpConnect({ host: '127.0.0.1', port, localAddress });
    this.socket.setEncoding('utf8');
    this.socket.on('error', () => undefined); // a reset is one of the outcomes under test
    this.socket.on('data', (chunk: string) => {
      this.received += chunk;
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  /** Sends GET `path` on a connection that ends with this exchange. */
  static get(port: number, path: string, headers: Record<string, string> = {}, localAddress?: string) {
    return RawExchange.send('GET', port, path, headers, localAddress);
  }

  static send(
    method: string,
    port: number,
    path: string,
    headers: Record<string, string> = {},
    localAddress?: string,
  ) {
    const exchange = new RawExchange(port, localAddress);
    const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers }).map(
      ([name, value]) => `${name}: ${value}\r\n`,
    );
    exchange.socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
    return exchange;
  }

  get text(): string {
    return this.received;
  }

  get body(): string {
    return this.received.slice(this.received.indexOf('\r\n\r\n') + 4);
  }

  /** The status of the answer, once its head arrived (0 if the connection closed first). */
  async status(): Promise<number> {
    await this.until(() => this.received.includes('\r\n\r\n') || this.socket.destroyed);
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(this.received)?.[1] ?? 0);
  }

  header(name: string): string | undefined {
    const head = this.received.slice(0, this.received.indexOf('\r\n\r\n'));
    return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
  }

  /** The SSE ids received so far. */
  ids(): number[] {
    return [...this.body.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  }

  async until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`timed out; received so far: ${this.received.slice(0, 500)}`);
      await Promise.race([new Promise<void>((wake) => this.waiters.push(wake)), sleep(20)]);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function cloudEvent(eventId: string, data: unknown = {}): CloudEvent {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'townhall/test',
    type: 'townhall.stage.posted',
    time: new Date().toISOString(),
    subject: eventId,
    datacontenttype: 'application/json',
    data,
  };
}

interface Booted {
  app: NestFastifyApplication;
  port: number;
  live: LiveStream;
  events: OneEvent;
}

/** Where the live stream's messages come from: standalone mode's log, or JetStream. */
interface Feed {
  name: string;
  start(settings: LiveStreamSettings): Promise<LiveStream>;
  /** Publishes a domain event about `eventId`; resolves with its sequence once the hub has it. */
  publish(live: LiveStream, eventId: string, data?: unknown): Promise<number>;
  stop(): Promise<void>;
}

function inProcessFeed(): Feed {
  const log = new InProcessEventLog();
  return {
    name: 'the in-process event log',
    start: async (settings) => startInProcessLiveStream(log, settings),
    publish: async (_live, eventId, data) => {
      await log.publish(cloudEvent(eventId, data));
      return log.lastSeq;
    },
    stop: async () => undefined,
  };
}

function jetStreamFeed(): Feed {
  let server: PrivateNatsServer | undefined;
  let nc: NatsConnection | undefined;
  return {
    name: 'JetStream',
    start: async (settings) => {
      server = await PrivateNatsServer.start({ authorization: false });
      const connection = await natsConnect({ servers: server.url });
      nc = connection;
      // JetStream may take a moment after the server starts to accept requests.
      await waitFor('the TOWNHALL stream', async () => {
        await ensureTownhallStream(connection);
        return true;
      });
      const live = startLiveStream({ nc: connection, logger, ...settings });
      await until('the feed to start', () => live.hub.position !== undefined, 20_000);
      return live;
    },
    publish: async (live, eventId, data) => {
      const event = cloudEvent(eventId, data);
      const { seq } = await jetstream(nc!).publish(event.type, JSON.stringify(event), { msgID: event.id });
      await until(`the hub at ${seq}`, () => (live.hub.position ?? 0) >= seq);
      return seq;
    },
    stop: async () => {
      await nc?.close();
      await server?.destroy();
    },
  };
}

describe('the limits of one client (gateway in process)', () => {
  let booted: Booted | undefined;
  let feed: Feed | undefined;

  async function boot(
    settings: Partial<LiveStreamSettings> = {},
    serverTimeouts?: ServerTimeouts,
    feedOf: () => Feed = inProcessFeed,
  ): Promise<Booted> {
    feed = feedOf();
    const live = await feed.start({ heartbeatMs: 60_000, clientBuffer: 100, ...settings });
    const events = new OneEvent();
    const app = await createGateway({
      audience: 'https://townhall.test',
      bodyLimit: 64 * 1024,
      logger,
      services: events,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      liveStream: live,
      ...(serverTimeouts ? { serverTimeouts } : {}),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    booted = { app, port: (app.getHttpServer().address() as AddressInfo).port, live, events };
    return booted;
  }

  afterEach(async () => {
    await booted?.app.close();
    await booted?.live.stop();
    await feed?.stop();
    booted = undefined;
    feed = undefined;
  });

  it('refuses the (cap+1)-th stream of one address with 429 live.too_many_streams; the others stay open', async () => {
    const { port, live } = await boot({ streamsPerClient: 3 });
    const path = `/events/${EVENT}/live`;
    const open = [RawExchange.get(port, path), RawExchange.get(port, path), RawExchange.get(port, path)];
    expect(await Promise.all(open.map((stream) => stream.status()))).toEqual([200, 200, 200]);

    const refused = RawExchange.get(port, path);
    expect(await refused.status()).toBe(429);
    await refused.closed;
    expect(refused.header('content-type')).toContain('application/problem+json');
    expect(Number(refused.header('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 429, code: 'live.too_many_streams' });

    // Another address is counted apart.
    const elsewhere = RawExchange.get(port, path, {}, '127.0.0.2');
    expect(await elsewhere.status()).toBe(200);
    expect([live.streams.of(ME), live.streams.of('ip:127.0.0.2')]).toEqual([3, 1]);

    // The open streams were not disturbed: they all get the next message.
    const seq = await feed!.publish(live, EVENT);
    for (const stream of [...open, elsewhere]) await stream.until(() => stream.ids().includes(seq));

    // Closing one lets a new one in.
    open[0]!.socket.destroy();
    await until('the place given back', () => live.streams.of(ME) === 2);
    const next = RawExchange.get(port, path);
    expect(await next.status()).toBe(200);
    for (const stream of [...open, elsewhere, next]) stream.socket.destroy();
    await until('every place given back', () => live.streams.total === 0);
  });

  it('answers HEAD with the headers of a stream at once, and takes no place', async () => {
    const { port, live } = await boot({ streamsPerClient: 3 });
    const head = RawExchange.send('HEAD', port, `/events/${EVENT}/live`);
    expect(await head.status()).toBe(200);
    await head.closed; // connection: close, so the answer is complete
    expect(head.header('content-type')).toContain('text/event-stream');
    expect(live.streams.total).toBe(0);
  });

  it('gives every place back, whatever ends the stream: 200 cycles, then a shutdown', async () => {
    const cap = 3;
    const { app, port, live, events } = await boot({ streamsPerClient: cap, clientBuffer: 5 });
    booted = undefined; // closed by the test itself
    for (let i = 0; i < 5; i++) await feed!.publish(live, EVENT, { i });
    const path = `/events/${EVENT}/live`;

    /** One way for a stream to end; resolves once the client side is done with it. */
    const endings: Array<(n: number) => Promise<void>> = [
      async () => {
        // The client destroys an open stream.
        const stream = RawExchange.get(port, path);
        expect(await stream.status()).toBe(200);
        stream.socket.destroy();
      },
      async (n) => {
        // The client leaves while the route still waits for the service: no response ever starts.
        const stream = RawExchange.get(port, path, { 'x-request-id': `slow-${n}` });
        await events.arrival(`slow-${n}`);
        stream.socket.destroy();
        await stream.closed;
      },
      async () => {
        // The client half-closes (FIN): the server ends the stream.
        const stream = RawExchange.get(port, path);
        expect(await stream.status()).toBe(200);
        stream.socket.end();
        await stream.closed;
      },
      async () => {
        // An event that does not exist: a 404, which gives its place back at once.
        const stream = RawExchange.get(port, '/events/nope/live');
        expect(await stream.status()).toBe(404);
        await stream.closed;
      },
      async () => {
        // A resume, cut in the middle of its replay.
        const stream = RawExchange.get(port, path, { 'last-event-id': '0' });
        expect(await stream.status()).toBe(200);
        stream.socket.destroy();
      },
    ];

    let cycles = 0;
    while (cycles < 200) {
      // As many at once as the cap allows: a place that was not given back shows as a 429.
      await Promise.all(
        Array.from({ length: cap }, (_, j) => endings[(cycles + j) % endings.length]!(cycles + j)),
      );
      cycles += cap;
      await until(`no stream open after ${cycles} cycles`, () => live.streams.total === 0);
    }
    expect(live.hub.subscriberCount).toBe(0);

    // The cap still holds exactly; then a shutdown ends the streams and gives their places back.
    const open = Array.from({ length: cap }, () => RawExchange.get(port, path));
    expect(await Promise.all(open.map((stream) => stream.status()))).toEqual([200, 200, 200]);
    expect(await RawExchange.get(port, path).status()).toBe(429);
    expect(live.streams.of(ME)).toBe(cap);
    await app.close();
    await Promise.all(open.map((stream) => stream.closed));
    expect([live.streams.total, live.hub.subscriberCount]).toEqual([0, 0]);
    await live.stop();
  });

  it('gives the place back when a client that stopped reading is cut off (buffer full)', async () => {
    const { port, live } = await boot({ streamsPerClient: 1, clientBuffer: 2 });
    const slow = RawExchange.get(port, `/events/${EVENT}/live`);
    expect(await slow.status()).toBe(200);
    slow.socket.pause();
    // Loopback sockets absorb a few MB before the writer notices: 40 messages of 200 KB.
    const big = 'x'.repeat(200_000);
    for (let i = 0; i < 40 && live.streams.total > 0; i++) await feed!.publish(live, EVENT, { big });
    await until('the slow client cut off', () => live.streams.total === 0);
    const next = RawExchange.get(port, `/events/${EVENT}/live`);
    expect(await next.status()).toBe(200);
    next.socket.destroy();
    slow.socket.destroy();
  });

  describe.each([
    ['the in-process event log', inProcessFeed],
    ['JetStream', jetStreamFeed],
  ])('a resume from far in the past, on %s', (_name, feedOf) => {
    it('gets history.cut, then the newest messages in order, without a duplicate', async () => {
      const replayLimit = 10;
      const { port, live } = await boot({ replayLimit }, undefined, feedOf);
      const mine: number[] = [];
      let first = 0;
      for (let i = 0; i < 60; i++) {
        const seq = await feed!.publish(live, i % 2 === 0 ? EVENT : 'e2', { i });
        if (i === 0) first = seq;
        if (i % 2 === 0) mine.push(seq);
      }
      const upTo = live.hub.position!;

      const stream = RawExchange.get(port, `/events/${EVENT}/live`, { 'last-event-id': String(first) });
      expect(await stream.status()).toBe(200);
      // Live messages while the replay runs: held, then sent after it.
      const later = [];
      for (let i = 0; i < 3; i++) later.push(await feed!.publish(live, EVENT, { later: i }));

      const expected = [upTo - replayLimit, ...mine.filter((seq) => seq > upTo - replayLimit), ...later];
      await stream.until(() => stream.ids().length >= expected.length);
      await sleep(50);
      expect(stream.ids()).toEqual(expected);
      expect(stream.body).toContain(
        `id: ${upTo - replayLimit}\nevent: history.cut\ndata: ${JSON.stringify({
          lastEventId: String(first),
          resumedAfter: String(upTo - replayLimit),
          skipped: upTo - replayLimit - first,
          reason: 'too_far_behind',
        })}\n\n`,
      );
      expect(stream.body.indexOf('event: history.cut')).toBeLessThan(stream.body.indexOf('event: townhall.'));

      // A resume within the limit is exact, with no cut.
      const again = RawExchange.get(port, `/events/${EVENT}/live`, { 'last-event-id': String(later[0]) });
      expect(await again.status()).toBe(200);
      await again.until(() => again.ids().length >= 2);
      await sleep(50);
      expect(again.body).not.toContain('history.cut');
      expect(again.ids()).toEqual(later.slice(1));
      stream.socket.destroy();
      again.socket.destroy();
    });
  });

  it('cuts a client that sends its request slowly; an open live stream outlives every timeout', async () => {
    const timeouts: ServerTimeouts = {
      headersMs: 1_000,
      requestMs: 1_500,
      keepAliveMs: 1_000,
      idleMs: 2_000,
    };
    const { port, live } = await boot({}, timeouts);
    // Node looks for late requests every headersMs / 4 (250 ms here); then the socket closes.
    const lateness = 250 + 500;

    const stream = RawExchange.get(port, `/events/${EVENT}/live`);
    expect(await stream.status()).toBe(200);
    const started = Date.now();

    // Headers one byte per second: each byte resets the idle timer; the headers timeout still cuts it.
    const drip = new RawExchange(port);
    const head = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 0123456789\r\n\r\n';
    let sent = 0;
    const dripping = setInterval(() => {
      if (!drip.socket.destroyed) drip.socket.write(head[sent++]!);
    }, 1_000);
    drip.socket.write(head[sent++]!);

    // A connection that sends nothing at all.
    const silent = new RawExchange(port);

    // A body one byte per second: the request timeout cuts it.
    const body = new RawExchange(port);
    body.socket.write(
      'POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    const bodyDrip = setInterval(() => body.socket.destroyed || body.socket.write(' '), 1_000);

    // A keep-alive connection left idle after its answer.
    const idle = RawExchange.get(port, '/healthz', { connection: 'keep-alive' });
    expect(await idle.status()).toBe(200);
    const answered = Date.now();

    try {
      const closedAfter = async (exchange: RawExchange, from: number) => {
        await exchange.closed;
        return Date.now() - from;
      };
      const [dripMs, silentMs, bodyMs, idleMs] = await Promise.all([
        closedAfter(drip, started),
        closedAfter(silent, started),
        closedAfter(body, started),
        closedAfter(idle, answered),
      ]);
      expect(sent).toBeLessThanOrEqual(3);
      expect(dripMs).toBeGreaterThanOrEqual(timeouts.headersMs - 100);
      expect(dripMs).toBeLessThan(timeouts.headersMs + lateness);
      expect(drip.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(drip.body)).toMatchObject({ code: 'request.timeout' });
      expect(silentMs).toBeLessThan(timeouts.headersMs + lateness);
      expect(bodyMs).toBeGreaterThanOrEqual(timeouts.requestMs - 100);
      expect(bodyMs).toBeLessThan(timeouts.requestMs + lateness);
      expect(body.text).toMatch(/^HTTP\/1\.1 408 /);
      // Node keeps an idle connection one second longer than it announces (Keep-Alive: timeout=1).
      expect(idleMs).toBeLessThan(timeouts.keepAliveMs + 1_000 + lateness);

      // Past every timeout (headers 1 s, request 1.5 s, idle 2 s, keep-alive 1 s + 1 s), with no
      // heartbeat (60 s): the stream is still open and still delivers.
      await sleep(Math.max(0, 3_000 - (Date.now() - started)));
      expect(stream.socket.destroyed).toBe(false);
      const seq = await feed!.publish(live, EVENT);
      await stream.until(() => stream.ids().includes(seq));
      expect(live.streams.total).toBe(1);
    } finally {
      clearInterval(dripping);
      clearInterval(bodyDrip);
      for (const exchange of [stream, drip, silent, body, idle]) exchange.socket.destroy();
    }
  });
});

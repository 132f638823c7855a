import 'reflect-metadata';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, signRequest, SignatureVerifier } from '@townhall/auth';
import { DomainError, Events, type Contract, type MessageMeta } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import type { z } from 'zod';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';
import { LiveHub } from './live-hub.js';
import { decodeLiveMessage, type LiveMessage } from './live-message.js';
import type { LiveStream } from './live-stream.js';
import type { LiveHistory } from './live-subscriber.js';
import { OpenLiveStreams } from './open-live-streams.js';

const EVENT = 'e1';
const AUDIENCE = 'https://townhall.test';
const logger = createLogger('test', 'silent');
const HOST = generateAgentKey();
const MODERATOR = generateAgentKey();

/** The events service as far as the route needs it: e1 exists, nothing else does. */
class OneEvent implements ServiceClient {
  async send<C extends Contract<z.ZodType, unknown>>(contract: C, data: unknown, _meta: MessageMeta) {
    if (contract.pattern !== Events.get.pattern) throw new Error(`unexpected ${contract.pattern}`);
    if ((data as { eventId: string }).eventId !== EVENT)
      throw new DomainError('event.not_found', 'No such event');
    return { id: EVENT, hostId: HOST.agentId, moderators: [MODERATOR.agentId] } as never;
  }
  async close(): Promise<void> {}
}

const domainEvent = (seq: number, eventId = EVENT): LiveMessage =>
  decodeLiveMessage(
    seq,
    'townhall.event.updated',
    JSON.stringify({ type: 'townhall.event.updated', subject: eventId, data: { seq } }),
  )!;

class StoredHistory implements LiveHistory {
  constructor(readonly stored: LiveMessage[]) {}
  async span(): Promise<{ first: number; last: number }> {
    return { first: this.stored[0]?.seq ?? 1, last: this.stored.at(-1)?.seq ?? 0 };
  }
  async *replay(eventId: string, after: number, upTo: number): AsyncGenerator<LiveMessage> {
    for (const m of this.stored) if (m.seq > after && m.seq <= upTo && m.eventId === eventId) yield m;
  }
}

/** An open stream: what arrived so far, and whether it ended. */
interface Stream {
  response: IncomingMessage;
  text: () => string;
  ended: Promise<void>;
}

function open(port: number, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const ended = new Promise<void>((done) => response.once('end', () => done()));
      resolve({ response, text: () => text, ended });
    }).on('error', reject);
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));

describe('GET /events/{id}/live (in process)', () => {
  let app: NestFastifyApplication | undefined;
  let port: number;
  let hub: LiveHub;
  let history: StoredHistory;
  let streams: OpenLiveStreams;

  async function boot(
    live: boolean,
    limits = { streamsPerClient: 20, replayLimit: 1_000, streamsPerEvent: 0, streamsTotal: 0 },
  ) {
    hub = new LiveHub();
    history = new StoredHistory([]);
    streams = new OpenLiveStreams({
      perClient: limits.streamsPerClient,
      perEvent: limits.streamsPerEvent,
      total: limits.streamsTotal,
    });
    const liveStream: LiveStream = {
      hub,
      history,
      heartbeatMs: 60_000,
      clientBuffer: 100,
      streams,
      replayLimit: limits.replayLimit,
      stop: async () => {},
    };
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger,
      services: new OneEvent(),
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      ...(live ? { liveStream } : {}),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.getHttpServer().address() as AddressInfo).port;
    return app;
  }

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('streams what the hub delivers about the event, from the moment of connection', async () => {
    await boot(true);
    hub.startAt(4);
    const stream = await open(port, `/events/${EVENT}/live`);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    hub.receive(5, () => domainEvent(5));
    hub.receive(6, () => domainEvent(6, 'e2'));
    hub.receive(7, () => domainEvent(7));
    await until('two messages', () => ids(stream.text()).length === 2);
    expect(stream.text()).toMatch(/^retry: 2000\n\nid: 5\nevent: townhall.event.updated\ndata: \{/);
    expect(ids(stream.text())).toEqual([5, 7]);
    stream.response.destroy();
  });

  it('resumes after Last-Event-ID from the history, then continues live', async () => {
    await boot(true);
    history.stored.push(...[2, 3, 4].map((seq) => domainEvent(seq)), domainEvent(5, 'e2'));
    hub.startAt(5);
    const stream = await open(port, `/events/${EVENT}/live`, { 'last-event-id': '2' });
    hub.receive(6, () => domainEvent(6));
    await until('three messages', () => ids(stream.text()).length === 3);
    expect(ids(stream.text())).toEqual([3, 4, 6]);
    stream.response.destroy();
  });

  it('answers 400 for a malformed Last-Event-ID and 404 for an unknown event, as problems', async () => {
    await boot(true);
    hub.startAt(0);
    const malformed = await open(port, `/events/${EVENT}/live?lastEventId=x1`);
    await malformed.ended;
    expect(malformed.response.statusCode).toBe(400);
    expect(malformed.response.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(malformed.text())).toMatchObject({ code: 'validation.failed' });
    const unknown = await open(port, '/events/nope/live');
    await unknown.ended;
    expect(unknown.response.statusCode).toBe(404);
    expect(JSON.parse(unknown.text())).toMatchObject({ code: 'event.not_found' });
  });

  it('answers 503 when the gateway runs without a live stream', async () => {
    await boot(false);
    const stream = await open(port, `/events/${EVENT}/live`);
    await stream.ended;
    expect(stream.response.statusCode).toBe(503);
    expect(JSON.parse(stream.text())).toMatchObject({ code: 'dependency.unavailable' });
  });

  it('ends open streams when the app closes, so that close() is not held up', async () => {
    const closing = await boot(true);
    app = undefined;
    hub.startAt(0);
    const streams = await Promise.all([
      open(port, `/events/${EVENT}/live`),
      open(port, `/events/${EVENT}/live`),
    ]);
    const started = Date.now();
    await closing.close();
    await Promise.all(streams.map((stream) => stream.ended));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hub.subscriberCount).toBe(0);
  });

  it('refuses a client address its streams beyond the cap: 429 live.too_many_streams, Retry-After', async () => {
    await boot(true, { streamsPerClient: 2, replayLimit: 1_000, streamsPerEvent: 0, streamsTotal: 0 });
    hub.startAt(0);
    const open1 = await open(port, `/events/${EVENT}/live`);
    const open2 = await open(port, `/events/${EVENT}/live`);
    const refused = await open(port, `/events/${EVENT}/live`);
    await refused.ended;
    expect(refused.response.statusCode).toBe(429);
    expect(refused.response.headers['content-type']).toContain('application/problem+json');
    expect(refused.response.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text())).toMatchObject({
      code: 'live.too_many_streams',
      type: 'https://townhall.test/docs/errors/live.too_many_streams',
    });
    expect(streams.of('ip:127.0.0.1')).toBe(2);

    // The cap is checked before the event is looked up; a 404 then gives its place back at once.
    const unknown = await open(port, '/events/nope/live');
    await unknown.ended;
    expect(unknown.response.statusCode).toBe(429);
    open1.response.destroy();
    await until('the place given back', () => streams.total === 1);
    const missing = await open(port, '/events/nope/live');
    await missing.ended;
    expect(missing.response.statusCode).toBe(404);
    expect(streams.total).toBe(1);
    open2.response.destroy();
    await until('every place given back', () => streams.total === 0 && hub.subscriberCount === 0);
  });

  it('tells a client resuming from too far back that its history was cut, then replays the rest', async () => {
    await boot(true, { streamsPerClient: 20, replayLimit: 3, streamsPerEvent: 0, streamsTotal: 0 });
    history.stored.push(...[2, 3, 4, 5, 6, 7].map((seq) => domainEvent(seq)));
    hub.startAt(7);
    const stream = await open(port, `/events/${EVENT}/live`, { 'last-event-id': '1' });
    hub.receive(8, () => domainEvent(8));
    await until('five messages', () => ids(stream.text()).length === 5);
    expect(stream.text()).toContain(
      'id: 4\nevent: history.cut\ndata: {"lastEventId":"1","resumedAfter":"4","skipped":3,"reason":"too_far_behind"}\n\n',
    );
    expect(ids(stream.text())).toEqual([4, 5, 6, 7, 8]);
    stream.response.destroy();
  });
  it('answers 503 live.event_at_capacity, with Retry-After, past the streams of one event, until one closes', async () => {
    await boot(true, { streamsPerClient: 20, replayLimit: 1_000, streamsPerEvent: 1, streamsTotal: 0 });
    hub.startAt(0);
    const first = await open(port, `/events/${EVENT}/live`);
    expect(first.response.statusCode).toBe(200);
    const refused = await open(port, `/events/${EVENT}/live`);
    await refused.ended;
    expect(refused.response.statusCode).toBe(503);
    expect(refused.response.headers['retry-after']).toBe('1');
    expect(refused.response.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(refused.text())).toMatchObject({ code: 'live.event_at_capacity', status: 503 });
    expect([streams.onEvent(EVENT), streams.total]).toEqual([1, 1]);
    first.response.destroy();
    await until('the place given back', () => streams.total === 0);
    const again = await open(port, `/events/${EVENT}/live`);
    expect(again.response.statusCode).toBe(200);
    again.response.destroy();
  });

  it('answers 503 live.at_capacity past the streams of the whole process', async () => {
    await boot(true, { streamsPerClient: 20, replayLimit: 1_000, streamsPerEvent: 0, streamsTotal: 2 });
    hub.startAt(0);
    const open1 = await open(port, `/events/${EVENT}/live`);
    const open2 = await open(port, `/events/${EVENT}/live`);
    const refused = await open(port, `/events/${EVENT}/live`);
    await refused.ended;
    expect(refused.response.statusCode).toBe(503);
    expect(refused.response.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text())).toMatchObject({ code: 'live.at_capacity' });
    open1.response.destroy();
    open2.response.destroy();
    await until('every place given back', () => streams.total === 0);
  });

  describe('tickets, refunds and waitlist entries', () => {
    const holder = generateAgentKey();
    const other = generateAgentKey();
    const record = (seq: number, type: string, data: Record<string, unknown>) =>
      decodeLiveMessage(
        seq,
        type,
        JSON.stringify({ specversion: '1.0', id: `m${seq}`, type, subject: EVENT, data }),
      )!;
    const ticket = (seq: number, holderId: string) =>
      record(seq, 'townhall.ticket.issued', {
        id: `t${seq}`,
        eventId: EVENT,
        tierId: 'vip',
        holderId,
        price: '5000000',
        transaction: 'tx',
      });
    const signedOpen = (key: typeof holder, headers: Record<string, string> = {}) => {
      const target = `/events/${EVENT}/live`;
      const signature = signRequest({ key, audience: AUDIENCE, method: 'GET', target });
      return open(port, target, {
        authorization: signature.authorization,
        'x-nonce': signature.nonce,
        ...headers,
      });
    };
    const dataOf = (text: string) =>
      [...text.matchAll(/^data: (.+)$/gm)].map((match) => (JSON.parse(match[1]!) as { data: unknown }).data);

    it('reach an anonymous stream as counts, a signed one whole for its own agent, every one whole for the staff', async () => {
      await boot(true);
      history.stored.push(ticket(1, holder.agentId), ticket(2, other.agentId));
      hub.startAt(2);
      const anonymous = await open(port, `/events/${EVENT}/live`, { 'last-event-id': '0' });
      const own = await signedOpen(holder, { 'last-event-id': '0' });
      const host = await signedOpen(HOST, { 'last-event-id': '0' });
      const moderator = await signedOpen(MODERATOR);
      expect([anonymous, own, host, moderator].map((s) => s.response.statusCode)).toEqual([
        200, 200, 200, 200,
      ]);
      hub.receive(3, () => ticket(3, holder.agentId));
      hub.receive(4, () => ticket(4, other.agentId));
      for (const stream of [anonymous, own, host])
        await until('four messages', () => ids(stream.text()).length === 4);
      await until('two live messages', () => ids(moderator.text()).length === 2);

      const counts = { eventId: EVENT, tierId: 'vip', counts: { tickets: 1 } };
      expect(dataOf(anonymous.text())).toEqual([counts, counts, counts, counts]);
      expect(anonymous.text()).not.toContain(holder.agentId);
      expect(anonymous.text()).not.toContain('5000000');
      const whole = (seq: number, holderId: string) => expect.objectContaining({ id: `t${seq}`, holderId });
      expect(dataOf(own.text())).toEqual([
        whole(1, holder.agentId),
        counts,
        whole(3, holder.agentId),
        counts,
      ]);
      expect(own.text()).not.toContain(other.agentId);
      expect(dataOf(host.text())).toEqual([
        whole(1, holder.agentId),
        whole(2, other.agentId),
        whole(3, holder.agentId),
        whole(4, other.agentId),
      ]);
      expect(dataOf(moderator.text())).toEqual([whole(3, holder.agentId), whole(4, other.agentId)]);
      for (const stream of [anonymous, own, host, moderator]) stream.response.destroy();
    });

    it('follow the staff as the event names it: a moderator removed sees counts from then on', async () => {
      await boot(true);
      hub.startAt(0);
      const moderator = await signedOpen(MODERATOR);
      hub.receive(1, () => ticket(1, holder.agentId));
      hub.receive(2, () =>
        record(2, 'townhall.event.updated', { id: EVENT, hostId: HOST.agentId, moderators: [] }),
      );
      hub.receive(3, () => ticket(3, holder.agentId));
      await until('three messages', () => ids(moderator.text()).length === 3);
      const [first, , third] = dataOf(moderator.text());
      expect(first).toMatchObject({ holderId: holder.agentId });
      expect(third).toEqual({ eventId: EVENT, tierId: 'vip', counts: { tickets: 1 } });
      moderator.response.destroy();
    });

    it('refuses a stream whose signature does not verify, as on any signed read', async () => {
      await boot(true);
      hub.startAt(0);
      const target = `/events/${EVENT}/live`;
      const signature = signRequest({
        key: holder,
        audience: AUDIENCE,
        method: 'GET',
        target: `${target}?x=1`,
      });
      const forged = await open(port, target, {
        authorization: signature.authorization,
        'x-nonce': signature.nonce,
      });
      await forged.ended;
      expect(forged.response.statusCode).toBe(401);
      expect(JSON.parse(forged.text())).toMatchObject({ code: 'auth.signature_invalid' });
      expect(streams.total).toBe(0);
    });
  });
});

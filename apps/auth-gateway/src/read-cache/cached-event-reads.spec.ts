import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, signMessageRequest, signRequest, SignatureVerifier } from '@townhall/auth';
import { DomainError, Events, Questions, type Contract, type MessageMeta } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import type { z } from 'zod';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';
import { LiveHub } from '../live/live-hub.js';
import { decodeLiveMessage } from '../live/live-message.js';
import { liveStreamOf } from '../live/live-stream.js';
import { EVENT_READ_CACHE_CONTROL } from './cached-event-reads.js';

const AUDIENCE = 'https://townhall.test';
const EVENT = '0b7c9f6e-1f0a-4c1e-9d5e-3f1a2b3c4d5e';
const OTHER = '6a1d2c3b-4e5f-4a7b-8c9d-0e1f2a3b4c5d';

/** The services as far as these routes need them: questions that a POST adds, and one event. */
class Services implements ServiceClient {
  readonly calls: string[] = [];
  questions: string[] = [];
  /** While set, a list waits for it before it answers (a read in flight)... */
  hold: Promise<void> | undefined;
  /** ...and calls this once it has read the questions. */
  onHeld: (() => void) | undefined;

  async send<C extends Contract<z.ZodType, unknown>>(contract: C, data: unknown, _meta: MessageMeta) {
    const input = data as { eventId: string; body?: string };
    this.calls.push(`${contract.pattern} ${input.eventId}`);
    if (input.eventId !== EVENT && input.eventId !== OTHER)
      throw new DomainError('event.not_found', 'No such event');
    if (contract.pattern === Questions.list.pattern) {
      const snapshot = [...this.questions];
      if (this.hold) {
        this.onHeld?.();
        await this.hold;
      }
      return { items: snapshot.map((body) => ({ body })), nextCursor: null } as never;
    }
    if (contract.pattern === Questions.submit.pattern) {
      this.questions.push(input.body!);
      return { body: input.body } as never;
    }
    if (contract.pattern === Events.get.pattern) return { id: input.eventId } as never;
    throw new Error(`unexpected ${contract.pattern}`);
  }
  async close(): Promise<void> {}
}

const message = (seq: number, eventId: string) =>
  decodeLiveMessage(
    seq,
    'townhall.question.upvoted',
    JSON.stringify({ type: 'townhall.question.upvoted', subject: eventId, data: {} }),
  );

describe('public event reads from the gateway cache (in process)', () => {
  let app: NestFastifyApplication;
  let services: Services;
  let hub: LiveHub;
  let base: string;
  let seq = 10;

  beforeEach(async () => {
    services = new Services();
    hub = new LiveHub();
    hub.startAt(seq);
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      readCacheMaxAgeMs: 60_000,
      liveStream: liveStreamOf(
        hub,
        { replay: async function* () {}, span: async () => ({ first: 1, last: 0 }) },
        { heartbeatMs: 60_000, clientBuffer: 100 },
      ),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await app.close();
  });

  const list = (eventId = EVENT, headers: Record<string, string> = {}) =>
    fetch(`${base}/events/${eventId}/questions?sort=top`, { headers });
  const bodies = async (response: Response) =>
    ((await response.json()) as { items: Array<{ body: string }> }).items.map((item) => item.body);
  const listCalls = () => services.calls.filter((call) => call.startsWith(Questions.list.pattern)).length;

  it('answers a repeated read from memory, with an ETag, Cache-Control and a 304 for If-None-Match', async () => {
    services.questions = ['first?'];
    const first = await list();
    expect(first.status).toBe(200);
    expect(await bodies(first)).toEqual(['first?']);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe(EVENT_READ_CACHE_CONTROL);

    const second = await list();
    expect(await bodies(second)).toEqual(['first?']);
    expect(second.headers.get('etag')).toBe(etag);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(listCalls()).toBe(1);

    const notModified = await list(EVENT, { 'if-none-match': `W/"nope", ${etag}` });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    // Another query is another reply.
    await fetch(`${base}/events/${EVENT}/questions?sort=new`);
    expect(listCalls()).toBe(2);
  });

  it('revalidates on a miss too: a change that left this read as it was still answers 304', async () => {
    services.questions = ['first?'];
    const first = await list();
    const etag = first.headers.get('etag')!;
    hub.receive(++seq, () => message(seq, EVENT)); // e.g. an upvote elsewhere in the event
    const revalidated = await list(EVENT, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    expect(listCalls()).toBe(2);
    services.questions = ['first?', 'second?'];
    hub.receive(++seq, () => message(seq, EVENT));
    const changed = await list(EVENT, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(await bodies(changed)).toEqual(['first?', 'second?']);
  });

  it('never serves nor keeps a read that carries a signature (it may show moderators more)', async () => {
    services.questions = ['public?'];
    await list();
    const signed = await list(EVENT, { authorization: 'Townhall garbage' });
    // Verified like any signed request: a signature that does not verify is refused.
    expect(signed.status).toBe(401);
    const key = generateAgentKey();
    const target = `/events/${EVENT}/questions?sort=top`;
    const headers = signRequest({ key, audience: AUDIENCE, method: 'GET', target });
    const verified = await fetch(`${base}${target}`, {
      headers: { authorization: headers.authorization, 'x-nonce': headers.nonce },
    });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('private, no-store');
    expect(verified.headers.get('vary')).toMatch(/authorization/i);
    expect(listCalls()).toBe(2);
    const publicRead = await list();
    expect(await bodies(publicRead)).toEqual(['public?']);
    expect(publicRead.headers.get('vary')).toMatch(/authorization/i);
    expect(listCalls()).toBe(2);
    // Signed by RFC 9421 instead: verified, asked of the service, never answered from the cache.
    const message = signMessageRequest({ key, method: 'GET', origin: AUDIENCE, target });
    const byMessage = await fetch(`${base}${target}`, {
      headers: { 'signature-input': message['Signature-Input'], signature: message.Signature },
    });
    expect(byMessage.status).toBe(200);
    expect(byMessage.headers.get('cache-control')).toBe('private, no-store');
    expect(byMessage.headers.get('vary')).toMatch(/signature-input/i);
    expect(listCalls()).toBe(3);
    const forged = await list(EVENT, {
      'signature-input': message['Signature-Input'],
      signature: message.Signature,
    });
    expect(forged.status).toBe(401);
  });

  it('reads a domain event of the event at once: the next read asks the service again', async () => {
    services.questions = ['first?'];
    await list();
    await list(OTHER);
    services.questions = ['first?', 'second?'];
    hub.receive(++seq, () => message(seq, OTHER)); // another event's change spoils nothing here
    expect(await bodies(await list())).toEqual(['first?']);
    hub.receive(++seq, () => message(seq, EVENT));
    expect(await bodies(await list())).toEqual(['first?', 'second?']);
    expect(listCalls()).toBe(3);
  });

  it('shows a write through this gateway on the next read, before its domain event arrives', async () => {
    await list();
    const key = generateAgentKey();
    const body = JSON.stringify({ body: 'mine?' });
    const target = `/events/${EVENT}/questions`;
    const headers = signRequest({ key, audience: AUDIENCE, method: 'POST', target, body });
    const posted = await fetch(`${base}${target}`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        authorization: headers.authorization,
        'x-nonce': headers.nonce,
      },
    });
    expect(posted.status).toBe(201);
    expect(await bodies(await list())).toEqual(['mine?']);
  });

  it('never keeps a reply read before a change that arrived while it was in flight', async () => {
    services.questions = ['old'];
    let release!: () => void;
    services.hold = new Promise<void>((resolve) => (release = resolve));
    const read = new Promise<void>((resolve) => (services.onHeld = resolve));
    const inFlight = list();
    await read; // the service has read the questions and not answered yet
    services.questions = ['old', 'new'];
    hub.receive(++seq, () => message(seq, EVENT));
    release();
    expect(await bodies(await inFlight)).toEqual(['old']); // what the service said, once
    services.hold = undefined;
    expect(await bodies(await list())).toEqual(['old', 'new']);
    expect(listCalls()).toBe(2);
  });

  it('refuses a parameter the route does not take, and keys a read on its parsed fields, not its URL', async () => {
    services.questions = ['first?'];
    for (const query of ['n=1', 'sort=top&n=2', 'sort=top&Sort=new', '__proto__=x']) {
      const refused = await fetch(`${base}/events/${EVENT}/questions?${query}`);
      const problem = (await refused.json()) as { code: string; errors: Array<{ field: string }> };
      expect([query, refused.status, problem.code]).toEqual([query, 400, 'request.unknown_parameter']);
      expect(problem.errors[0]!.field).toBe(/(n|Sort|__proto__)=/.exec(query)![1]);
    }
    const invalid = await fetch(`${base}/events/${EVENT}/questions?sort=best`);
    expect([invalid.status, ((await invalid.json()) as { code: string }).code]).toEqual([
      400,
      'validation.failed',
    ]);
    expect(listCalls()).toBe(0); // refused before the cache and the service

    // One entry, however the same fields are ordered, spelled or left to their defaults.
    for (const query of [
      'sort=top&limit=10&cursor=x',
      'cursor=x&limit=10&sort=top',
      'limit=010&cursor=%78',
      'cursor=x&limit=10&sort=%74op',
    ])
      expect([query, await bodies(await fetch(`${base}/events/${EVENT}/questions?${query}`))]).toEqual([
        query,
        ['first?'],
      ]);
    expect(listCalls()).toBe(1);
    for (const query of ['', 'sort=top', 'limit=20', 'limit=20&sort=top&'])
      await fetch(`${base}/events/${EVENT}/questions?${query}`);
    expect(listCalls()).toBe(2);
    await fetch(`${base}/events/${EVENT}/questions?limit=11&cursor=x`); // other fields: another entry
    expect(listCalls()).toBe(3);
    // The event itself takes no query at all.
    const event = await fetch(`${base}/events/${EVENT}?fresh=1`);
    expect([event.status, ((await event.json()) as { detail: string }).detail]).toEqual([
      400,
      'Unknown query parameter "fresh": it takes none',
    ]);
  });

  it('keeps errors out of the cache and signed or unrelated routes out of it', async () => {
    const missing = `/events/${'1'.repeat(8)}-1111-4111-8111-${'1'.repeat(12)}/questions`;
    expect((await fetch(`${base}${missing}`)).status).toBe(404);
    expect((await fetch(`${base}${missing}`)).status).toBe(404);
    expect(services.calls.filter((call) => call.includes('1111-4111'))).toHaveLength(2);
    const event = await fetch(`${base}/events/${EVENT}`);
    expect(event.headers.get('cache-control')).toBe(EVENT_READ_CACHE_CONTROL);
    await fetch(`${base}/events/${EVENT}`);
    expect(services.calls.filter((call) => call.startsWith(Events.get.pattern))).toHaveLength(1);
  });
});

import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignatureVerifier } from '@townhall/auth';
import { Directory, DomainError, Events, Polls, Questions, Recordings, Stage } from '@townhall/contracts';
import { createLogger } from '@townhall/platform';
import { anEventView, ScriptedServices, type AskedOfServices } from '@townhall/testing';
import { MemoryNonceStore } from '../../auth/nonce-store.js';
import { createGateway } from '../../gateway.js';
import { LiveHub } from '../../live/live-hub.js';
import { liveStreamOf } from '../../live/live-stream.js';
import type { OpenApiDocument } from '../descriptions/openapi-document.js';
import { PAGE_CSP } from './page-response.js';
import { WATCH_ASSETS } from './watch-assets.js';
import { API_INDEX } from './watch.controller.js';

const EVENT_ID = '6f1c3e2a-1b2c-4d5e-8f90-123456789abc';
const HOST = 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp';

const event = anEventView({
  id: EVENT_ID,
  endsAt: '2027-03-04T19:00:00.000Z',
  hostId: HOST,
  capacity: 10,
});

/**
 * The services as the watch page meets them: one event, its lists, no host card; an id longer
 * than the contract allows is a 400 and any other unknown id a 404, as the real services answer.
 * Records what it was asked, with which meta.
 */
function pageAnswer({ pattern, data }: AskedOfServices): unknown {
  const eventId = (data as { eventId?: string }).eventId;
  if (eventId !== undefined && eventId.length > 100)
    throw new DomainError('validation.failed', 'eventId: too long', [
      { field: 'eventId', message: 'too long' },
    ]);
  if (eventId !== undefined && eventId !== EVENT_ID)
    throw new DomainError('event.not_found', `No event ${eventId}`);
  const page = (items: unknown[]) => ({ items, nextCursor: null }) as never;
  switch (pattern) {
    case Events.get.pattern:
      return event as never;
    case Events.list.pattern:
      return page((data as { status: string }).status === 'live' ? [event] : []);
    case Stage.list.pattern:
    case Polls.list.pattern:
      return page([]);
    case Questions.list.pattern:
      return page([
        {
          id: 'q1',
          eventId: EVENT_ID,
          authorId: 'a',
          body: 'Visible?',
          upvotes: 1,
          state: 'open',
          createdAt: event.createdAt,
        },
        {
          id: 'q2',
          eventId: EVENT_ID,
          authorId: 'b',
          body: 'Held back',
          upvotes: 9,
          state: 'pending',
          createdAt: event.createdAt,
        },
      ]);
    case Directory.getCards.pattern:
      return { items: [] };
    case Recordings.get.pattern:
      throw new DomainError('recording.not_found', 'not published');
    default:
      throw new DomainError('service.unavailable', `not in this test: ${pattern}`);
  }
}

describe('the pages for people, in the gateway', () => {
  let app: NestFastifyApplication;
  let services: ScriptedServices;
  let base: string;
  const hub = new LiveHub();

  async function boot(readsPerSecond = 0, readCacheMaxAgeMs = 0): Promise<void> {
    services = new ScriptedServices(pageAnswer);
    app = await createGateway({
      audience: 'https://townhall.test',
      bodyLimit: 64 * 1024,
      logger: createLogger('watch-test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      readCacheMaxAgeMs,
      liveStream: liveStreamOf(
        hub,
        { span: async () => ({ first: 1, last: 41 }), replay: async function* () {} },
        {
          heartbeatMs: 15_000,
          clientBuffer: 100,
        },
      ),
      rateLimits: {
        config: {
          TOWNHALL_ENV: 'development',
          RATE_LIMIT_WRITES_PER_SECOND: 0,
          RATE_LIMIT_WRITE_BURST: 0,
          RATE_LIMIT_READS_PER_SECOND: readsPerSecond,
        },
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }

  beforeAll(() => hub.startAt(41));
  afterEach(async () => {
    await app?.close();
  });

  it('serves the watch page: HTML with its CSP, the public reads only, and the live position', async () => {
    await boot();
    const response = await fetch(`${base}/events/${EVENT_ID}/watch`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await response.text();
    expect(page).toContain('<h1>Ask me anything</h1>');
    expect(page).toContain('&quot;lastEventId&quot;:&quot;41&quot;');
    expect(page).toContain('Visible?');
    expect(page).not.toContain('Held back'); // a pending question never shows, whatever a service answers
    expect(page).toContain(`<link rel="stylesheet" href="${WATCH_ASSETS.css.url}"/>`);
    // Every service was asked as a public route asks it: no caller, the request's id.
    const requestId = response.headers.get('x-request-id');
    expect(services.asked.length).toBeGreaterThanOrEqual(5);
    for (const { meta } of services.asked) expect(meta).toEqual({ requestId, caller: null });
    const head = await fetch(`${base}/events/${EVENT_ID}/watch`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('serves a crowd from the read cache until the event changes, with the same headers', async () => {
    await boot(0, 60_000);
    const first = await fetch(`${base}/events/${EVENT_ID}/watch`);
    const page = await first.text();
    const asked = services.asked.length;
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await fetch(`${base}/events/${EVENT_ID}/watch`);
    expect(await again.text()).toBe(page);
    expect(services.asked.length).toBe(asked); // a hit: no service asked
    for (const response of [first, again]) {
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const revalidated = await fetch(`${base}/events/${EVENT_ID}/watch`, {
      headers: { 'if-none-match': etag },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('content-security-policy')).toBe(PAGE_CSP);
    // A message about the event: rendered again, from the new position.
    hub.receive(42, () => ({
      seq: 42,
      type: 'townhall.stage.posted',
      eventId: EVENT_ID,
      frame: 'id: 42\n\n',
    }));
    const changed = await (await fetch(`${base}/events/${EVENT_ID}/watch`)).text();
    expect(services.asked.length).toBeGreaterThan(asked);
    expect(changed).toContain('&quot;lastEventId&quot;:&quot;42&quot;');
  });

  it('answers an unknown event, a bad id or a service outage with a page, never a 500', async () => {
    await boot();
    for (const [id, status, code] of [
      ['00000000-0000-4000-8000-000000000000', 404, 'event.not_found'],
      ['not-a-uuid', 404, 'event.not_found'],
      ['%00', 400, 'validation.failed'],
      ['x'.repeat(5_000), 414, 'request.uri_too_long'],
      ['%3Cscript%3Ealert(1)%3C%2Fscript%3E', 404, 'event.not_found'],
    ] as const) {
      const response = await fetch(`${base}/events/${id}/watch`);
      const page = await response.text();
      expect([id.slice(0, 20), response.status]).toEqual([id.slice(0, 20), status]);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(page).toContain(`<code>${code}</code>`);
      expect(page).not.toContain('<script>alert');
    }
    services.failWith = new DomainError('service.unavailable', 'events is down');
    const down = await fetch(`${base}/events/${EVENT_ID}/watch`);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.text()).toContain('<code>service.unavailable</code>');
  });

  it('answers GET / with the index to a browser and with JSON to everyone else', async () => {
    await boot();
    const browser = await fetch(`${base}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(browser.status).toBe(200);
    expect(browser.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(browser.headers.get('vary')).toMatch(/accept/i);
    const page = await browser.text();
    expect(page).toContain(`<a href="/events/${EVENT_ID}/watch">Ask me anything</a>`);
    expect(page).toContain('Nothing is scheduled.');
    expect(services.asked.map(({ data }) => (data as { status?: string }).status).sort()).toEqual([
      'live',
      'past',
      'scheduled',
    ]);
    for (const accept of [undefined, '*/*', 'application/json']) {
      const response = await fetch(`${base}/`, accept ? { headers: { accept } } : {});
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual(API_INDEX);
    }
  });

  it('asks the directory for the agents with a role in one request, once however many pages name them', async () => {
    await boot();
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/events/${EVENT_ID}/watch`)).status).toBe(200);
    const cards = services.asked.filter(({ pattern }) => pattern.startsWith('directory.'));
    expect(cards.map(({ pattern, data }) => [pattern, data])).toEqual([
      [Directory.getCards.pattern, { agentIds: [HOST] }],
    ]);
  });

  it('serves the stylesheet and script: hashed names for good, plain names revalidated', async () => {
    await boot();
    for (const asset of Object.values(WATCH_ASSETS)) {
      const hashed = await fetch(`${base}${asset.url}`);
      expect(hashed.status).toBe(200);
      expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(hashed.headers.get('content-type')).toBe(asset.type);
      expect(await hashed.text()).toBe(asset.body);
      const plain = await fetch(`${base}/assets/watch.${asset.url.split('.').pop()}`);
      expect(plain.headers.get('cache-control')).toBe('public, no-cache');
      const etag = plain.headers.get('etag')!;
      await plain.text();
      const again = await fetch(`${base}${asset.url}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    const missing = await fetch(`${base}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('<code>route.not_found</code>');
  });

  it('counts pages against the address read quota, and never the static files', async () => {
    await boot(2);
    const answers: Response[] = [];
    for (let i = 0; i < 3; i++) answers.push(await fetch(`${base}/events/${EVENT_ID}/watch`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    // Refused as a page, with the rate limit's own headers.
    const limited = answers[2]!;
    expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.text()).toContain('<code>rate.limited</code>');
    for (let i = 0; i < 5; i++) expect((await fetch(`${base}${WATCH_ASSETS.js.url}`)).status).toBe(200);
  });

  it('keeps the pages out of the OpenAPI document: their errors are pages, not problem+json', async () => {
    await boot();
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
    const paths = Object.keys(document.paths);
    expect(paths).not.toContain('/');
    expect(paths).not.toContain('/events/{id}/watch');
    expect(paths.some((path) => path.startsWith('/assets'))).toBe(false);
    expect(paths).toContain('/events/{id}/live');
  });
});

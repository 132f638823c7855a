import 'reflect-metadata';
import { jest } from '@jest/globals';
import { ALL_BUT_DATE } from '@townhall/testing';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, signRequest, SignatureVerifier, type AgentKey } from '@townhall/auth';
import { DomainError, type Contract } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import type { z } from 'zod';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';
import { LiveHub } from '../live/live-hub.js';
import { liveStreamOf } from '../live/live-stream.js';
import { rateLimitHeaders } from './rate-limited-requests.js';
import type { RateLimitConfig, RateLimitKind } from './rate-limits.js';

const AUDIENCE = 'https://townhall.test';
const CARD = { handle: 'alice' };

/** Stands in for the services: counts what reaches them, answers a card (or fails when told to). */
class CountingServices implements ServiceClient {
  readonly patterns: string[] = [];
  failWith: DomainError | undefined;

  async send<C extends Contract<z.ZodType, unknown>>(contract: C): Promise<never> {
    this.patterns.push(contract.pattern);
    if (this.failWith) throw this.failWith;
    return { created: true, card: CARD, items: [], nextCursor: null, ...CARD } as never;
  }
  async close(): Promise<void> {}
}

describe('rate limits in the gateway (in process, memory counters)', () => {
  let app: NestFastifyApplication;
  let services: CountingServices;
  let base: string;
  let limited: RateLimitKind[];

  async function boot(config: Partial<RateLimitConfig> = {}): Promise<void> {
    services = new CountingServices();
    limited = [];
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      rateLimits: {
        config: {
          TOWNHALL_ENV: 'development',
          RATE_LIMIT_WRITES_PER_SECOND: 2,
          RATE_LIMIT_WRITE_BURST: 3,
          RATE_LIMIT_READS_PER_SECOND: 3,
          ...config,
        },
        onLimited: (kind) => limited.push(kind),
      },
      // The test client is the "proxy": X-Forwarded-For names the client address.
      trustProxy: ['loopback'],
      // As in production: a live stream, and with it the read cache's onSend hook, which makes
      // a response finish after the hook that sent it (a 429 must still end the request).
      readCacheMaxAgeMs: 1_000,
      liveStream: liveStreamOf(
        new LiveHub(),
        { replay: async function* () {}, span: async () => ({ first: 1, last: 0 }) },
        { heartbeatMs: 60_000, clientBuffer: 100 },
      ),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }
  // The windows are one second long: a loaded machine must not let a test's requests straddle
  // two of them, so this process's Date stands still (timers and I/O run as usual).
  beforeEach(() => {
    jest.useFakeTimers({
      now: new Date('2026-03-01T12:00:00.250Z'),
      doNotFake: [...ALL_BUT_DATE],
    });
  });
  afterEach(async () => {
    await app.close();
    jest.useRealTimers();
  });

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

  function signed(key: AgentKey, method: string, target: string, body?: string, headers = {}) {
    const auth = signRequest({
      key,
      audience: AUDIENCE,
      method,
      target,
      ...(body === undefined ? {} : { body }),
    });
    return fetch(base + target, {
      method,
      headers: {
        authorization: auth.authorization,
        'x-nonce': auth.nonce,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
  }
  const putCard = (key: AgentKey, body = JSON.stringify(CARD)) => signed(key, 'PUT', '/directory/me', body);

  function limitHeaders(response: Response) {
    return {
      limit: response.headers.get('ratelimit-limit'),
      remaining: response.headers.get('ratelimit-remaining'),
      reset: response.headers.get('ratelimit-reset'),
      policy: response.headers.get('ratelimit-policy'),
      retryAfter: response.headers.get('retry-after'),
    };
  }

  it('limits public reads per client IP, with RateLimit-* headers on every answer and a 429 problem', async () => {
    await boot();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get('/events', from('203.0.113.9')));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => limitHeaders(r))).toEqual([
      { limit: '3', remaining: '2', reset: '1', policy: '3;w=1', retryAfter: null },
      { limit: '3', remaining: '1', reset: '1', policy: '3;w=1', retryAfter: null },
      { limit: '3', remaining: '0', reset: '1', policy: '3;w=1', retryAfter: null },
      { limit: '3', remaining: '0', reset: '1', policy: '3;w=1', retryAfter: '1' },
    ]);
    const problem = answers[3]!;
    expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await problem.json()).toEqual({
      type: `${AUDIENCE}/docs/errors/rate.limited`,
      title: 'Too many requests',
      status: 429,
      detail: 'Too many requests from this address (RateLimit-Policy 3;w=1); retry after 1 s',
      code: 'rate.limited',
      requestId: problem.headers.get('x-request-id'),
    });
    expect(services.patterns).toHaveLength(3); // the 429 never reached a service
    expect(limited).toEqual(['read']);

    // Other addresses have budgets of their own; an unknown route is a public request too.
    expect((await get('/events', from('203.0.113.10'))).status).toBe(200);
    expect((await get('/events')).status).toBe(200);
    expect((await get('/nowhere', from('203.0.113.9'))).status).toBe(429);
  });

  it('never limits the routes declared unlimited (probes, documents, /docs, assets), and sends them no RateLimit headers', async () => {
    await boot({ RATE_LIMIT_READS_PER_SECOND: 1 });
    await get('/events', from('203.0.113.9'));
    const unlimited = [
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/asyncapi.json',
      '/docs',
      '/docs/',
      '/docs/errors/rate.limited',
      '/docs/swagger-ui.css',
      '/docs/docs.js',
      '/assets/watch.js',
    ];
    for (const path of unlimited) {
      for (const method of ['GET', 'HEAD']) {
        for (let i = 0; i < 3; i++) {
          const response = await fetch(base + path, { method, headers: from('203.0.113.9') });
          expect({ path, method, status: response.status }).toEqual({ path, method, status: 200 });
          expect(response.headers.get('ratelimit-limit')).toBeNull();
        }
      }
    }
    // Beside them, every other public path is counted, unknown ones included: /metrics is served
    // on PROBE_PORT only, and a path that merely starts like /docs is not the docs page.
    for (const [i, path] of ['/events', '/metrics', '/docs-other'].entries()) {
      const response = await get(path, from(`203.0.113.${20 + i}`));
      expect({ path, limit: response.headers.get('ratelimit-limit') }).toEqual({ path, limit: '1' });
    }
  });

  it("limits an agent's signed writes to the rate plus the burst, per agent, before any service is asked", async () => {
    await boot();
    const alice = generateAgentKey();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await putCard(alice));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 429]);
    expect(answers.map((r) => [limitHeaders(r).remaining, limitHeaders(r).retryAfter])).toEqual([
      ['1', null],
      ['0', null],
      ['0', null], // the burst reserve is spent, never announced
      ['0', '1'],
    ]);
    expect(limitHeaders(answers[0]!)).toMatchObject({ limit: '2', reset: '1', policy: '2;w=1;burst=3' });
    expect(await answers[3]!.json()).toMatchObject({
      status: 429,
      code: 'rate.limited',
      detail: 'Too many writes by this agent (RateLimit-Policy 2;w=1;burst=3); retry after 1 s',
    });
    expect(services.patterns).toHaveLength(3);
    expect(limited).toEqual(['write']);

    const bob = generateAgentKey();
    const other = await putCard(bob);
    expect(other.status).toBe(201);
    expect(limitHeaders(other).remaining).toBe('1');
  });

  it('counts a verified write whatever it then meets (bad JSON, a service refusal)', async () => {
    await boot();
    const alice = generateAgentKey();
    const badJson = await putCard(alice, '{"handle":');
    expect(badJson.status).toBe(400);
    expect(limitHeaders(badJson).remaining).toBe('1');
    services.failWith = new DomainError('directory.handle_taken', 'taken');
    const refused = await putCard(alice);
    expect(refused.status).toBe(409);
    expect(limitHeaders(refused)).toMatchObject({ limit: '2', remaining: '0' });
    services.failWith = undefined;
    expect((await putCard(alice)).status).toBe(201); // the reserve
    expect((await putCard(alice)).status).toBe(429);
  });

  it('spends nothing for a request whose signature fails or whose nonce is replayed', async () => {
    await boot();
    const alice = generateAgentKey();
    const body = JSON.stringify(CARD);
    const auth = signRequest({
      key: alice,
      audience: AUDIENCE,
      method: 'PUT',
      target: '/directory/me',
      body,
    });
    const send = (payload: string) =>
      fetch(`${base}/directory/me`, {
        method: 'PUT',
        headers: {
          authorization: auth.authorization,
          'x-nonce': auth.nonce,
          'content-type': 'application/json',
        },
        body: payload,
      });
    for (let i = 0; i < 5; i++) expect((await send('{"handle":"mallory"}')).status).toBe(401); // forged
    expect((await send(body)).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await send(body)).status).toBe(401); // replayed
    const next = await putCard(alice);
    expect(next.status).toBe(201);
    expect(limitHeaders(next).remaining).toBe('0'); // the second write of this second
  });

  it('counts signed reads per agent, not per address, so agents behind one address do not share', async () => {
    await boot();
    const agents = [generateAgentKey(), generateAgentKey()];
    for (const agent of agents) {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await signed(agent, 'GET', `/directory/${agent.agentId}`, undefined, from('203.0.113.9'))).status,
        );
      expect(statuses).toEqual([200, 200, 200, 429]);
    }
    // The address's own budget for unsigned reads is untouched.
    expect(limitHeaders(await get('/events', from('203.0.113.9'))).remaining).toBe('2');
  });

  it('sends no RateLimit headers for a kind that is turned off (0)', async () => {
    await boot({ RATE_LIMIT_READS_PER_SECOND: 0, RATE_LIMIT_WRITES_PER_SECOND: 0 });
    const alice = generateAgentKey();
    for (let i = 0; i < 5; i++) {
      const write = await putCard(alice);
      const read = await get('/events');
      expect([write.status, read.status]).toEqual([201, 200]);
      expect([write.headers.get('ratelimit-limit'), read.headers.get('ratelimit-limit')]).toEqual([
        null,
        null,
      ]);
    }
  });
});

describe('rateLimitHeaders', () => {
  it('adds Retry-After only to a refusal', () => {
    const decision = {
      kind: 'write',
      limit: 20,
      remaining: 0,
      resetSeconds: 2,
      policy: '20;w=1;burst=40',
    } as const;
    expect(rateLimitHeaders({ ...decision, allowed: true })).toEqual({
      'ratelimit-limit': '20',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '2',
      'ratelimit-policy': '20;w=1;burst=40',
    });
    expect(rateLimitHeaders({ ...decision, allowed: false })['retry-after']).toBe('2');
  });
});

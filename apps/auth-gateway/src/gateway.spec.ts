import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, signRequest, SignatureVerifier, type AgentKey } from '@townhall/auth';
import { Directory, DomainError } from '@townhall/contracts';
import { createLogger } from '@townhall/platform';
import { ScriptedServices } from '@townhall/testing';
import { MemoryNonceStore, type Claim, type NonceStore } from './auth/nonce-store.js';
import { createGateway } from './gateway.js';

const AUDIENCE = 'https://townhall.test';

interface Sent {
  method: string;
  url: string;
  headers?: Record<string, string | string[]>;
  payload?: string;
}
interface Received {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  json(): Record<string, unknown>;
}

/** Real HTTP over loopback (light-my-request cannot load under jest's ESM runtime on Node 20).
 * An array header value is sent as repeated header lines. */
function send(port: number, sent: Sent): Promise<Received> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: sent.method, path: sent.url, headers: sent.headers ?? {} },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            json: () => JSON.parse(text),
          });
        });
      },
    );
    request.on('error', reject);
    request.end(sent.payload);
  });
}

/** Stands in for the services (not for NATS): records what the gateway sent, answers a card. */
const recordingServices = () =>
  new ScriptedServices(({ meta }) => ({
    agentId: meta.caller,
    handle: 'alice',
    created: true,
    card: { handle: 'alice' },
  }));

class BrokenNonceStore implements NonceStore {
  async claim(): Promise<Claim> {
    throw new Error('ECONNREFUSED');
  }
  async ping(): Promise<void> {
    throw new Error('ECONNREFUSED');
  }
  async close(): Promise<void> {}
}

describe('gateway (in process, signed-request guard)', () => {
  let app: NestFastifyApplication;
  let services: ScriptedServices;
  let nonces: NonceStore;
  let key: AgentKey;
  let now = Date.now();
  let port = 0;

  async function boot(store: NonceStore = new MemoryNonceStore()): Promise<void> {
    services = recordingServices();
    nonces = store;
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('test', 'silent'),
      services,
      nonces,
      verifier: new SignatureVerifier(),
      readiness: {},
      now: () => now,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.getHttpServer().address() as AddressInfo).port;
  }

  const inject = (sent: Sent) => send(port, sent);

  function signed(
    method: string,
    target: string,
    body?: string,
    overrides: { nonce?: string; timestamp?: string } = {},
  ): Sent & { headers: Record<string, string> } {
    const headers = signRequest({
      key,
      audience: AUDIENCE,
      method,
      target,
      ...(body === undefined ? {} : { body }),
      ...overrides,
    });
    return {
      method,
      url: target,
      headers: {
        authorization: headers.authorization,
        'x-nonce': headers.nonce,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: body }),
    };
  }

  beforeEach(async () => {
    now = Date.now();
    key = generateAgentKey();
    await boot();
  });
  afterEach(async () => {
    await app.close();
  });

  it('passes the verified caller and request id to the service', async () => {
    const request = signed('GET', `/directory/${key.agentId}`);
    const response = await inject({ ...request, headers: { ...request.headers, 'x-request-id': 'req-123' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('req-123');
    expect(services.asked).toEqual([
      {
        pattern: Directory.getCard.pattern,
        data: { agentId: key.agentId },
        meta: { requestId: 'req-123', caller: key.agentId },
      },
    ]);
  });

  it('rejects a replayed request with auth.nonce_replayed and never reaches the service twice', async () => {
    const request = signed('GET', `/directory/${key.agentId}`);
    expect((await inject(request)).statusCode).toBe(200);
    const replay = await inject(request);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'auth.nonce_replayed', status: 401 });
    expect(services.asked).toHaveLength(1);
  });

  it('does not burn the nonce of a request whose signature fails', async () => {
    const good = signed('GET', `/directory/${key.agentId}`);
    const forged = { ...good, url: `/directory/${generateAgentKey().agentId}` };
    const rejected = await inject(forged);
    expect(rejected.json()).toMatchObject({ code: 'auth.signature_invalid' });
    expect((await inject(good)).statusCode).toBe(200);
  });

  it('answers 401 problem+json with WWW-Authenticate when the headers are missing', async () => {
    const response = await inject({ method: 'GET', url: `/directory/${key.agentId}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers['www-authenticate']).toBe(`service realm="${AUDIENCE}"`);
    expect(response.json()).toEqual({
      type: `${AUDIENCE}/docs/errors/auth.malformed`,
      title: expect.any(String),
      status: 401,
      detail: expect.any(String),
      code: 'auth.malformed',
      requestId: response.headers['x-request-id'],
    });
  });

  it('rejects two Authorization headers', async () => {
    const request = signed('GET', `/directory/${key.agentId}`);
    const authorization = String(request.headers['authorization']);
    const response = await inject({
      ...request,
      headers: { ...request.headers, authorization: [authorization, authorization] },
    });
    expect(response.json()).toMatchObject({ code: 'auth.malformed' });
  });

  it('checks the timestamp window against the server clock', async () => {
    const request = signed('GET', `/directory/${key.agentId}`, undefined, {
      timestamp: new Date(now - 301_000).toISOString(),
    });
    expect((await inject(request)).json()).toMatchObject({ code: 'auth.timestamp_out_of_window' });
    const fresh = signed('GET', `/directory/${key.agentId}`, undefined, {
      timestamp: new Date(now - 290_000).toISOString(),
    });
    expect((await inject(fresh)).statusCode).toBe(200);
  });

  it('rejects an encoded slash in a signed path rather than normalising it', async () => {
    const response = await inject(signed('GET', '/directory/abc%2Fdef'));
    expect(response.json()).toMatchObject({ code: 'auth.malformed' });
    expect(services.asked).toHaveLength(0);
  });

  it('caps bodies at 64 KiB with 413', async () => {
    const body = JSON.stringify({ handle: 'alice', bio: 'x'.repeat(70_000) });
    const response = await inject(signed('PUT', '/directory/me', body));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'request.body_too_large' });
  });

  it('hands the handler exactly the signed body, parsed, and rejects bad JSON after verifying', async () => {
    const ok = await inject(signed('PUT', '/directory/me', '{"handle":"alice"}'));
    expect(ok.statusCode).toBe(201);
    expect(services.asked[0]?.data).toEqual({ handle: 'alice' });
    const bad = await inject(signed('PUT', '/directory/me', '{"handle":'));
    expect(bad.json()).toMatchObject({ code: 'request.malformed_json', status: 400 });
  });

  it('fails closed with 503 and Retry-After when the nonce store cannot answer', async () => {
    await app.close();
    await boot(new BrokenNonceStore());
    const response = await inject(signed('GET', `/directory/${key.agentId}`));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ code: 'dependency.unavailable' });
    expect(services.asked).toHaveLength(0);
    expect((await inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it.each([
    ['service.unavailable', 503],
    ['service.timeout', 504],
    ['directory.handle_taken', 409],
    ['validation.failed', 400],
    ['directory.card_not_found', 404],
  ] as const)('maps a service error %s to %i', async (code, status) => {
    services.failWith = new DomainError(code, 'because');
    const response = await inject(signed('GET', `/directory/${key.agentId}`));
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ code, status, detail: 'because' });
  });

  it('answers unknown routes with route.not_found', async () => {
    const response = await inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'route.not_found' });
  });

  describe('the input policy, on every route', () => {
    /** Raw bytes on a socket: what no HTTP client library would send. */
    function rawRequest(head: Buffer): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(head));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    }
    function problemIn(raw: string): Record<string, unknown> {
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/content-type: application\/problem\+json/i);
      return JSON.parse(body!) as Record<string, unknown>;
    }

    it.each([
      ['a path segment over 100 characters', `/events/${'a'.repeat(101)}`, 414, 'request.uri_too_long'],
      ['bad percent-encoding', '/events/%zz', 400, 'request.path_invalid'],
      ['an encoded NUL in the path', '/events/a%00b', 400, 'validation.failed'],
      ['an encoded NUL in the query', '/events?q=a%00b', 400, 'validation.failed'],
    ])('answers %s (%s) with problem+json %i %s, asking no service', async (_label, url, status, code) => {
      const response = await inject({ method: 'GET', url });
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ code, status });
      expect(services.asked).toHaveLength(0);
    });

    it('answers raw non-ASCII path bytes and oversized headers as problem+json from the socket', async () => {
      const raw = await rawRequest(
        Buffer.concat([
          Buffer.from('GET /events/'),
          Buffer.from([0xc3, 0xa9, 0xff]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
      );
      expect(raw).toMatch(/^HTTP\/1.1 400 /);
      expect(problemIn(raw)).toMatchObject({ code: 'request.malformed', status: 400 });
      const huge = await rawRequest(
        Buffer.from(`GET /events HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      expect(huge).toMatch(/^HTTP\/1.1 431 /);
      expect(problemIn(huge)).toMatchObject({ code: 'request.headers_too_large', status: 431 });
    });

    it('refuses a body nested deeper than 32 levels before any service sees it', async () => {
      const body = '['.repeat(9_000) + ']'.repeat(9_000);
      const response = await inject(signed('PUT', '/directory/me', body));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request.too_deep' });
      expect(services.asked).toHaveLength(0);
    });

    it('refuses an RSVP body that is not an object, and two different payments', async () => {
      const eventId = '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f';
      for (const body of ['[]', '"x"', '42', '{"tierId":"vip","payment":"smuggled"}']) {
        const response = await inject(signed('POST', `/events/${eventId}/rsvp`, body));
        expect([response.statusCode, response.json()['code']]).toEqual([400, 'validation.failed']);
      }
      const twoPayments = signed('POST', `/events/${eventId}/rsvp`);
      twoPayments.headers['x-payment'] = 'AAAA';
      twoPayments.headers['payment-signature'] = 'BBBB';
      const response = await inject(twoPayments);
      expect([response.statusCode, response.json()['code']]).toEqual([400, 'validation.failed']);
      expect(services.asked).toHaveLength(0);
    });
  });
});

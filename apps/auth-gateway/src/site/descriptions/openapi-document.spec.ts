import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { SignatureVerifier } from '@townhall/auth';
import { DomainError, PROBLEM_CODES, type ProblemCode } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { MemoryNonceStore } from '../../auth/nonce-store.js';
import { createGateway } from '../../gateway.js';
import {
  ANY_ROUTE_CODES,
  IDEMPOTENT_ROUTE_CODES,
  MESSAGE_SIGNATURE_SCHEME,
  NONCE_SCHEME,
  SIGNATURE_INPUT_SCHEME,
  SIGNATURE_SCHEME,
  SIGNED_ROUTE_CODES,
  type OpenApiDocument,
  type OpenApiOperation,
} from './openapi-document.js';

const AUDIENCE = 'https://townhall.test';
const DOCS = /^\/docs(\/|$)/;

/** No service answers: every route that asks one gets 503, which is all these tests need. */
const noServices: ServiceClient = {
  send: async () => {
    throw new DomainError('service.unavailable', 'no services in this test');
  },
  close: async () => {},
};

interface RegisteredRoute {
  method: string;
  url: string;
  signed: boolean;
  /** A page for people (site/pages/): HTML, deliberately not in the document. */
  page: boolean;
}

type Json = Record<string, unknown>;

describe('the OpenAPI document of the gateway', () => {
  let app: NestFastifyApplication;
  let base: string;
  let document: OpenApiDocument;
  const registered: RegisteredRoute[] = [];

  beforeAll(async () => {
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('openapi-test', 'silent'),
      services: noServices,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
    });
    // Nest adds its routes when the app starts; record what Fastify is given, with its route config.
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route) => {
        for (const method of [route.method].flat())
          registered.push({
            method: method.toUpperCase(),
            url: route.url ?? route.path,
            signed: (route.config as { signed?: boolean } | undefined)?.signed === true,
            page: (route.config as { page?: string } | undefined)?.page !== undefined,
          });
      });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await app.close();
  });

  const operations = (): Array<{ method: string; path: string; operation: OpenApiOperation }> =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
  const operation = (method: string, path: string): OpenApiOperation => {
    const found = document.paths[path]?.[method.toLowerCase()];
    if (!found) throw new Error(`${method} ${path} is not documented`);
    return found;
  };
  const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');
  /** The API's own routes: HEAD twins of GETs, the docs page's internals and the pages for people left out. */
  const apiRoutes = () =>
    registered.filter((route) => route.method !== 'HEAD' && !DOCS.test(route.url) && !route.page);

  it('is valid OpenAPI 3.1, with every $ref resolving', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Json);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.openapi).toBe('3.1.0');
  });

  it('is served at /openapi.json unsigned and cacheable, with an ETag', async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(`${base}/openapi.json`, { headers: { 'if-none-match': `W/${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('documents the public event reads as conditional: 200 or 304, with ETag and Cache-Control', () => {
    const eventReads = ['/events/{id}', '/events/{id}/stage', '/events/{id}/questions', '/events/{id}/polls'];
    for (const path of eventReads) {
      const responses = document.paths[path]!['get']!.responses;
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '304']));
      expect(Object.keys((responses['200'] as { headers: object }).headers)).toEqual(
        expect.arrayContaining(['ETag', 'Cache-Control']),
      );
      expect(responses['304']).not.toHaveProperty('content');
    }
    // A signed read, or a list of every event, is not served from the cache.
    expect(Object.keys(document.paths['/events']!['get']!.responses)).not.toContain('304');
    expect(Object.keys(document.paths['/directory/{agentId}']!['get']!.responses)).not.toContain('304');
  });

  it('names this environment as its server and the package version as its own', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(document.servers).toEqual([expect.objectContaining({ url: AUDIENCE })]);
    expect(document.info.version).toBe(manifest.version);
    expect(document.info.description).toContain('## Quick start');
  });

  it('documents every route Fastify serves, and only those', () => {
    const served = apiRoutes().map((route) => `${route.method} ${route.url}`);
    const documented = operations().map(({ method, path }) => `${method} ${fastifyPath(path)}`);
    expect(served.length).toBeGreaterThan(40);
    expect([...documented].sort()).toEqual([...new Set(served)].sort());
    for (const { method, path } of operations())
      expect(
        app
          .getHttpAdapter()
          .getInstance()
          .hasRoute({ method, url: fastifyPath(path) }),
      ).toBe(true);
  });

  it('puts the signature requirement on exactly the routes Fastify verifies', () => {
    const signedRoutes = new Set(
      apiRoutes()
        .filter((route) => route.signed)
        .map((route) => `${route.method} ${route.url}`),
    );
    expect(signedRoutes.size).toBeGreaterThan(25);
    for (const { method, path, operation } of operations()) {
      const signed = signedRoutes.has(`${method} ${fastifyPath(path)}`);
      if (signed) {
        expect(operation.security).toEqual([
          { [SIGNATURE_SCHEME]: [], [NONCE_SCHEME]: [] },
          { [MESSAGE_SIGNATURE_SCHEME]: [], [SIGNATURE_INPUT_SCHEME]: [] },
        ]);
        for (const code of SIGNED_ROUTE_CODES) expect(codesOf(operation)).toContain(code);
      } else {
        // Public: an explicit empty list (no signature needed), not an unsaid requirement.
        expect(operation.security).toEqual([]);
        expect(codesOf(operation)).not.toContain('auth.malformed');
      }
    }
    expect(operation('PUT', '/directory/me').security).toHaveLength(2);
    expect(operation('GET', '/events').security).toEqual([]);
    expect(operation('GET', '/openapi.json').security).toEqual([]);
  });

  it('answers unsigned requests to signed operations with 401 and lets public ones through', async () => {
    for (const { method, path, operation } of operations()) {
      if (path.endsWith('/live')) continue; // a stream: covered by the live-stream tests
      const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const response = await fetch(`${base}${url}`, { method });
      await response.arrayBuffer();
      if (operation.security.length > 0)
        expect([`${method} ${path}`, response.status]).toEqual([`${method} ${path}`, 401]);
      else expect([`${method} ${path}`, response.status]).not.toEqual([`${method} ${path}`, 401]);
    }
  });

  it('documents the signing headers, the signing string, the window and nonces', () => {
    const scheme = document.components.securitySchemes[SIGNATURE_SCHEME] as Json;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'service' });
    const text = String(scheme['description']);
    for (const needle of [
      'Authorization: service <agentId>:<signature>:<timestamp>',
      'X-Nonce: <nonce>',
      'service-auth-v1',
      `\`${AUDIENCE}\``,
      'now - 300 s <= timestamp <= now + 30 s',
      'each nonce works\nonce per agent',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ])
      expect(text).toContain(needle);
    expect(document.components.securitySchemes[NONCE_SCHEME]).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Nonce',
    });
  });

  it('has every problem code of @townhall/contracts, each answered somewhere', () => {
    const all = Object.keys(PROBLEM_CODES) as ProblemCode[];
    const problem = document.components.schemas['Problem'] as { properties: { code: { enum: string[] } } };
    expect([...problem.properties.code.enum].sort()).toEqual([...all].sort());
    for (const code of all)
      expect(document.info.description).toContain(`| \`${code}\` | ${PROBLEM_CODES[code].status} |`);
    const answered = new Set([
      ...ANY_ROUTE_CODES,
      ...operations().flatMap(({ operation }) => codesOf(operation)),
    ]);
    expect(all.filter((code) => !answered.has(code))).toEqual([]);
  });

  it('files each problem under its own status, as problem+json', () => {
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = (response['content'] ?? {}) as Record<string, Json>;
        const problem = content['application/problem+json'];
        if (!problem) continue;
        for (const code of codeEnum(problem))
          expect(String(PROBLEM_CODES[code as ProblemCode].status)).toBe(status);
      }
    }
  });

  it('takes request bodies and queries from the zod contracts', () => {
    const create = operation('POST', '/events').requestBody as {
      required: boolean;
      content: Record<string, Json>;
    };
    const body = create.content['application/json']?.['schema'] as Json & { required: string[] };
    expect(create.required).toBe(true);
    expect(body['additionalProperties']).toBe(false);
    expect(body.required).toEqual(
      expect.arrayContaining(['title', 'startsAt', 'endsAt', 'timezone', 'capacity']),
    );
    const stage = operation('POST', '/events/{id}/stage').requestBody as { content: Record<string, Json> };
    expect(
      Object.keys((stage.content['application/json']?.['schema'] as { properties: Json }).properties),
    ).toEqual(['body']);
    const query = (operation('GET', '/events').parameters ?? []).map((parameter) => parameter['name']);
    expect(query).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'status', 'hostId', 'seriesId', 'from', 'to', 'q']),
    );
  });

  it('documents the x402 flow on POST /events/{id}/rsvp', () => {
    const rsvp = operation('POST', '/events/{id}/rsvp');
    expect(rsvp.description).toContain('PAYMENT-REQUIRED');
    const headers = (rsvp.parameters ?? []).filter((parameter) => parameter['in'] === 'header');
    expect(headers.map((parameter) => parameter['name'])).toEqual(['X-PAYMENT', 'PAYMENT-SIGNATURE']);
    const paymentRequired = rsvp.responses['402'] as Json & { headers: Json; content: Record<string, Json> };
    expect(Object.keys(paymentRequired.headers)).toContain('PAYMENT-REQUIRED');
    const schema = paymentRequired.content['application/problem+json']?.['schema'] as { allOf: Json[] };
    expect(schema.allOf).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/schemas/Problem' },
        { $ref: '#/components/schemas/PaymentRequired' },
      ]),
    );
    expect(codeEnum(paymentRequired.content['application/problem+json'] as Json)).toEqual([
      'payment.required',
      'payment.invalid',
      'payment.insufficient_funds',
    ]);
    expect(Object.keys(rsvp.responses['201']?.['headers'] as Json)).toEqual(
      expect.arrayContaining(['X-PAYMENT-RESPONSE', 'PAYMENT-RESPONSE']),
    );
    expect(rsvp.responses['200']).toBeDefined();
    expect(document.components.schemas['PaymentRequired']).toBeDefined();
    expect(document.components.schemas['LedgerPayment']).toBeDefined();
    // The base64 headers name the JSON they carry.
    const base64Json = (schema: string) => ({
      contentEncoding: 'base64',
      contentMediaType: 'application/json',
      contentSchema: { $ref: `#/components/schemas/${schema}` },
    });
    expect(headers[0]?.['schema']).toMatchObject({ type: 'string', ...base64Json('LedgerPayment') });
    for (const name of ['X-PAYMENT-RESPONSE', 'PAYMENT-RESPONSE'])
      expect(document.components.headers[name]?.['schema']).toMatchObject(base64Json('PaymentResponse'));
  });

  it('documents Idempotency-Key on every signed write, its codes, and Idempotent-Replayed on what may be replayed', () => {
    const key = { $ref: '#/components/parameters/Idempotency-Key' };
    expect(document.components.parameters['Idempotency-Key']).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
    let writes = 0;
    for (const { method, path, operation } of operations()) {
      const signedWrite =
        operation.security.length > 0 && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);
      expect([`${method} ${path}`, (operation.parameters ?? []).some((p) => p['$ref'] === key.$ref)]).toEqual(
        [`${method} ${path}`, signedWrite],
      );
      if (!signedWrite) {
        expect(codesOf(operation)).not.toContain('idempotency.key_invalid');
        continue;
      }
      writes += 1;
      for (const code of IDEMPOTENT_ROUTE_CODES) expect(codesOf(operation)).toContain(code);
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      for (const [, response] of success)
        expect(Object.keys(response['headers'] as Json)).toContain('Idempotent-Replayed');
      // Only 2xx answers are kept: no refusal is a replay.
      expect(Object.keys(operation.responses['409']?.['headers'] as Json)).toContain('Retry-After');
      for (const [status, response] of Object.entries(operation.responses))
        if (/^[45]/.test(status) && response['headers'])
          expect([status, Object.keys(response['headers'] as Json)]).not.toEqual([
            status,
            expect.arrayContaining(['Idempotent-Replayed']),
          ]);
    }
    expect(writes).toBeGreaterThan(20);
    expect(document.info.description).toContain('## Retrying writes: Idempotency-Key');
  });

  it('documents the live stream as text/event-stream and calendars as text/calendar', () => {
    const live = operation('GET', '/events/{id}/live');
    expect(Object.keys(live.responses['200']?.['content'] as Json)).toEqual(['text/event-stream']);
    // Modelled as OpenAPI 3.2 models a stream: its messages, whose data is a CloudEvent.
    const stream = (live.responses['200']?.['content'] as Record<string, Json>)['text/event-stream'] as {
      schema: { type: string; items: { properties: { data: Json } } };
      example: Array<Record<string, unknown>>;
    };
    expect(stream.schema.type).toBe('array');
    expect(JSON.stringify(stream.schema.items.properties.data)).toContain('#/components/schemas/CloudEvent');
    expect(stream.example[0]).toEqual({ retry: 2000 });
    expect(stream.example[1]).toMatchObject({ id: '42', event: 'townhall.stage.posted' });
    expect(JSON.parse(String(stream.example[1]?.['data']))).toMatchObject({ specversion: '1.0' });
    expect(String(live.responses['200']?.['description'])).toContain(': keep-alive');
    expect((live.parameters ?? []).map((parameter) => parameter['name'])).toEqual(
      expect.arrayContaining(['id', 'lastEventId', 'Last-Event-ID']),
    );
    for (const path of ['/events/{id}/calendar.ics', '/events/series/{id}/calendar.ics'])
      expect(Object.keys(operation('GET', path).responses['200']?.['content'] as Json)).toEqual([
        'text/calendar',
      ]);
  });

  it('refers replies to the shared schemas', () => {
    expect(operation('GET', '/events/{id}').responses['200']?.['content']).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Event' } },
    });
    const recording = document.components.schemas['Recording'] as {
      properties: { transcript: { properties: { stage: Json } } };
    };
    expect(recording.properties.transcript.properties.stage).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/StageMessage' },
    });
  });

  it('serves the page each problem type names', async () => {
    const page = await fetch(`${base}/docs/errors/capacity.sold_out`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(PROBLEM_CODES['capacity.sold_out'].title);
    const unknown = await fetch(`${base}/docs/errors/nope`);
    expect(unknown.status).toBe(404);
    await unknown.text();
    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/docs/swagger-ui-bundle.js');
  });
});

function codeEnum(media: Json): string[] {
  const allOf = ((media['schema'] as { allOf?: Json[] } | undefined)?.allOf ?? []) as Array<{
    properties?: { code?: { enum?: string[] } };
  }>;
  return allOf.flatMap((part) => part.properties?.code?.enum ?? []);
}

function codesOf(operation: OpenApiOperation): string[] {
  return Object.values(operation.responses).flatMap((response) => {
    const media = (response['content'] as Record<string, Json> | undefined)?.['application/problem+json'];
    return media ? codeEnum(media) : [];
  });
}

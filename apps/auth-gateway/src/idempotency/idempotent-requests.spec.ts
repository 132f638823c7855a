import 'reflect-metadata';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, signRequest, SignatureVerifier, type AgentKey } from '@townhall/auth';
import { DomainError, type Contract, type MessageMeta } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { decodePaymentResponse } from '@townhall/x402';
import type { z } from 'zod';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';
import { MemoryIdempotencyStore, type Begun, type IdempotencyStore } from './idempotency-store.js';
import type { IdempotencyOptions } from './idempotent-requests.js';

const AUDIENCE = 'https://townhall.test';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Real HTTP over loopback; `headers` as [name, value] lines, so a header may repeat. */
function send(
  port: number,
  method: string,
  target: string,
  lines: Array<[string, string]>,
  body?: string,
  { abortAfterMs }: { abortAfterMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        // Raw header lines (a header may repeat); Node adds neither Host nor framing to them.
        headers: [
          ['host', `127.0.0.1:${port}`],
          ...lines,
          ['content-length', String(Buffer.byteLength(body ?? ''))],
        ].flat(),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    request.on('error', reject);
    if (abortAfterMs !== undefined)
      setTimeout(() => {
        request.destroy();
        resolve({ status: 0, headers: {}, text: '' });
      }, abortAfterMs);
    request.end(body);
  });
}

type Handler = (pattern: string, data: Record<string, unknown>, meta: MessageMeta) => Promise<unknown>;

/** Stands in for the services: each call goes to `handler`, and is counted. */
class FakeServices implements ServiceClient {
  calls: Array<{ pattern: string; data: Record<string, unknown> }> = [];
  handler: Handler = FakeServices.created;

  static readonly created: Handler = async (_pattern, data, meta) => ({
    id: 'event-1',
    ...data,
    hostId: meta.caller,
  });

  async send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: unknown,
    meta: MessageMeta,
  ): Promise<never> {
    this.calls.push({ pattern: contract.pattern, data: data as Record<string, unknown> });
    return (await this.handler(contract.pattern, data as Record<string, unknown>, meta)) as never;
  }
  async close(): Promise<void> {}
}

/** A gate a handler waits at until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('Idempotency-Key on signed writes (in process)', () => {
  let app: NestFastifyApplication;
  let port: number;
  let services: FakeServices;
  let alice: AgentKey;
  let bob: AgentKey;

  /** Whether the running gateway has a test's own options: the next test gets the usual one again. */
  let ownOptions = false;

  async function boot(idempotency?: Partial<IdempotencyOptions>): Promise<void> {
    await app?.close();
    ownOptions = idempotency !== undefined;
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('idempotency-test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
      idempotency: { store: new MemoryIdempotencyStore(), inFlightMs: 15_000, ...idempotency },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.getHttpServer().address() as AddressInfo).port;
  }

  beforeAll(async () => {
    alice = generateAgentKey();
    bob = generateAgentKey();
    services = new FakeServices();
    await boot();
  });
  // One gateway for the file (each test uses keys of its own); a test that needs other options boots its own.
  beforeEach(async () => {
    if (ownOptions) await boot();
    services.calls = [];
    services.handler = FakeServices.created;
  });
  afterAll(() => app?.close());

  /** A freshly signed request (a new nonce each time), with extra header lines. */
  function signed(
    method: string,
    target: string,
    body: unknown,
    extra: Array<[string, string]> = [],
    key: AgentKey = alice,
  ): Promise<Answer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = signRequest({
      key,
      audience: AUDIENCE,
      method,
      target,
      ...(text === undefined ? {} : { body: text }),
    });
    const lines: Array<[string, string]> = [
      ['authorization', headers.authorization],
      ['x-nonce', headers.nonce],
      ...(text === undefined ? [] : ([['content-type', 'application/json']] as Array<[string, string]>)),
      ...extra,
    ];
    return send(port, method, target, lines, text);
  }

  const EVENT = { title: 'AMA', capacity: 10 };
  const codeOf = (answer: Answer) => (JSON.parse(answer.text) as { code: string }).code;

  it('replays the first answer exactly, with Idempotent-Replayed: true, and runs the handler once', async () => {
    const first = await signed('POST', '/events', EVENT, [['idempotency-key', 'create-ama-1']]);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await signed('POST', '/events', EVENT, [['idempotency-key', 'create-ama-1']]);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Its own request id: the headers of the attempt are not replayed.
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(services.calls).toHaveLength(1);
  });

  it('leaves requests without the key, and signed reads, alone', async () => {
    await signed('POST', '/events', EVENT);
    await signed('POST', '/events', EVENT);
    expect(services.calls).toHaveLength(2);
    services.handler = async () => ({ balances: [] });
    // A signed read with a key it would refuse on a write: ignored.
    const read = await signed('GET', '/ledger/balance', undefined, [['idempotency-key', 'k'.repeat(300)]]);
    expect(read.status).toBe(200);
    expect(read.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 422 idempotency.key_mismatch for the same key with another method, path, query or body', async () => {
    services.handler = async (_pattern, data) => ({ id: 'm1', ...data });
    const key: [string, string] = ['idempotency-key', 'mismatch-1'];
    expect((await signed('POST', '/events', EVENT, [key])).status).toBe(201);
    for (const other of [
      signed('POST', '/events', { ...EVENT, capacity: 11 }, [key]),
      signed('POST', '/events?x=1', EVENT, [key]),
      signed('POST', '/events/e1/stage', { body: 'hi' }, [key]),
      signed('PATCH', '/events/e1', { title: 'x' }, [key]),
    ]) {
      const answer = await other;
      expect([answer.status, codeOf(answer)]).toEqual([422, 'idempotency.key_mismatch']);
    }
    // The same JSON with other bytes is another body.
    const spaced = JSON.stringify(EVENT).replace(':', ': ');
    const headers = signRequest({
      key: alice,
      audience: AUDIENCE,
      method: 'POST',
      target: '/events',
      body: spaced,
    });
    const answer = await send(
      port,
      'POST',
      '/events',
      [
        ['authorization', headers.authorization],
        ['x-nonce', headers.nonce],
        ['content-type', 'application/json'],
        key,
      ],
      spaced,
    );
    expect(answer.status).toBe(422);
    expect(services.calls).toHaveLength(1);
  });

  it('answers 409 idempotency.in_flight with Retry-After: 1 while the first is running, then replays', async () => {
    const { wait, open } = gate();
    services.handler = async (_pattern, data) => {
      await wait;
      return { id: 'slow', ...data };
    };
    const key: [string, string] = ['idempotency-key', 'slow-1'];
    const first = signed('POST', '/events', EVENT, [key]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await signed('POST', '/events', EVENT, [key]);
    expect([busy.status, codeOf(busy), busy.headers['retry-after']]).toEqual([
      409,
      'idempotency.in_flight',
      '1',
    ]);
    // Another request with a running key is still a mismatch.
    expect((await signed('POST', '/events', { ...EVENT, capacity: 3 }, [key])).status).toBe(422);
    open();
    const done = await first;
    expect(done.status).toBe(201);
    const replayed = await signed('POST', '/events', EVENT, [key]);
    expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([
      201,
      done.text,
      'true',
    ]);
    expect(services.calls).toHaveLength(1);
  });

  it('lets exactly one of many concurrent requests with one key run', async () => {
    services.handler = async (_pattern, data) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { id: 'once', ...data };
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => signed('POST', '/events', EVENT, [['idempotency-key', 'race-1']])),
    );
    expect(services.calls).toHaveLength(1);
    const ran = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const answer of answers)
      if (answer !== ran[0])
        expect(answer.status === 409 ? codeOf(answer) : answer.text).toBe(
          answer.status === 409 ? 'idempotency.in_flight' : ran[0]!.text,
        );
  });

  it('keeps 2xx only: a refusal (4xx) or a 503 or 504 is evaluated again on a retry with the key', async () => {
    for (const code of ['event.not_found', 'capacity.sold_out', 'validation.failed'] as const) {
      services.calls = [];
      services.handler = async () => {
        throw new DomainError(code, 'refused');
      };
      const refused = await signed('POST', '/events/e1/stage', { body: 'hi' }, [['idempotency-key', code]]);
      expect(codeOf(refused)).toBe(code);
      services.handler = async (_pattern, data) => ({ id: 'm1', ...data });
      const again = await signed('POST', '/events/e1/stage', { body: 'hi' }, [['idempotency-key', code]]);
      expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
      expect(services.calls).toHaveLength(2);
      // The 201 is what is kept now.
      const replayed = await signed('POST', '/events/e1/stage', { body: 'hi' }, [['idempotency-key', code]]);
      expect([replayed.status, replayed.text, replayed.headers['idempotent-replayed']]).toEqual([
        201,
        again.text,
        'true',
      ]);
      expect(services.calls).toHaveLength(2);
    }

    for (const code of ['service.unavailable', 'service.timeout'] as const) {
      services.calls = [];
      services.handler = async () => {
        throw new DomainError(code, 'away');
      };
      const failed = await signed('POST', '/events', EVENT, [['idempotency-key', code]]);
      expect(failed.status).toBeGreaterThanOrEqual(503);
      services.handler = async (_pattern, data) => ({ id: 'later', ...data });
      const retried = await signed('POST', '/events', EVENT, [['idempotency-key', code]]);
      expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
      expect(services.calls).toHaveLength(2);
    }
  });

  it('does not keep a 402: the paid retry with the same key runs, and its 201 is replayed with its payment response', async () => {
    const settlement = {
      success: true,
      transaction: 'tx-1',
      network: 'ledger:development',
      payer: alice.agentId,
    };
    services.handler = async (_pattern, data) => {
      if (data['payment'] === undefined)
        throw new DomainError('payment.required', 'X-PAYMENT header is required');
      return {
        created: true,
        settlement,
        ticket: { id: 't1', eventId: 'e1', tierId: 'general', holderId: alice.agentId, status: 'active' },
      };
    };
    const key: [string, string] = ['idempotency-key', 'rsvp-1'];
    const offer = await signed('POST', '/events/e1/rsvp', {}, [key]);
    expect(offer.status).toBe(402);
    const paid = await signed('POST', '/events/e1/rsvp', {}, [key, ['x-payment', 'cGF5bWVudC0x']]);
    expect(paid.status).toBe(201);
    expect(decodePaymentResponse(String(paid.headers['x-payment-response']))).toEqual(settlement);
    // A retry that signed a new payment, or none: the first answer, nothing sent to ticketing.
    for (const payment of [[['x-payment', 'cGF5bWVudC0y']], []] as Array<Array<[string, string]>>) {
      const replayed = await signed('POST', '/events/e1/rsvp', {}, [key, ...payment]);
      expect(replayed.status).toBe(201);
      expect(replayed.text).toBe(paid.text);
      expect(replayed.headers['x-payment-response']).toBe(paid.headers['x-payment-response']);
      expect(replayed.headers['payment-response']).toBe(paid.headers['payment-response']);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
    }
    expect(services.calls).toHaveLength(2);
  });

  it('replays a 202 pending ticket with its Location', async () => {
    services.handler = async () => ({
      created: true,
      ticket: { id: 't2', eventId: 'e2', tierId: 'general', holderId: alice.agentId, status: 'pending' },
    });
    const key: [string, string] = ['idempotency-key', 'pending-1'];
    const pending = await signed('POST', '/events/e2/rsvp', {}, [key, ['x-payment', 'cGF5']]);
    expect([pending.status, pending.headers['location']]).toEqual([202, '/events/e2/rsvp']);
    const replayed = await signed('POST', '/events/e2/rsvp', {}, [key, ['x-payment', 'cGF5']]);
    expect([replayed.status, replayed.headers['location'], replayed.text]).toEqual([
      202,
      '/events/e2/rsvp',
      pending.text,
    ]);
  });

  it('scopes keys to the signing agent', async () => {
    const key: [string, string] = ['idempotency-key', 'shared-key'];
    const mine = await signed('POST', '/events', EVENT, [key], alice);
    const theirs = await signed('POST', '/events', { ...EVENT, title: 'Other' }, [key], bob);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(services.calls).toHaveLength(2);
  });

  it('refuses a key that is empty, too long, not printable ASCII or sent twice (400), before anything runs', async () => {
    const refused = [
      [['idempotency-key', '']],
      [['idempotency-key', 'k'.repeat(256)]],
      [['idempotency-key', 'caf\u00e9']],
      [['idempotency-key', 'tab\there']],
      [
        ['idempotency-key', 'one'],
        ['idempotency-key', 'two'],
      ],
    ] as Array<Array<[string, string]>>;
    for (const lines of refused) {
      const answer = await signed('POST', '/events', EVENT, lines);
      expect([answer.status, codeOf(answer)]).toEqual([400, 'idempotency.key_invalid']);
    }
    expect(services.calls).toHaveLength(0);
    for (const key of ['k'.repeat(255), '"8e03978e-40d5-43e8-bc93-6894a57f9324"', 'with spaces ~!'])
      expect((await signed('POST', '/events', EVENT, [['idempotency-key', key]])).status).toBe(201);
  });

  it('checks the signature first: a forged request neither claims nor answers for the key', async () => {
    const headers = signRequest({
      key: alice,
      audience: AUDIENCE,
      method: 'POST',
      target: '/events',
      body: '{}',
    });
    const forged = await send(
      port,
      'POST',
      '/events',
      [
        ['authorization', headers.authorization],
        ['x-nonce', headers.nonce],
        ['content-type', 'application/json'],
        ['idempotency-key', 'k'.repeat(300)],
      ],
      JSON.stringify(EVENT),
    );
    expect([forged.status, codeOf(forged)]).toEqual([401, 'auth.signature_invalid']);
    expect((await signed('POST', '/events', EVENT, [['idempotency-key', 'after-forgery']])).status).toBe(201);
  });

  it('keeps the answer when the client hung up while its request ran', async () => {
    const { wait, open } = gate();
    services.handler = async (_pattern, data) => {
      await wait;
      return { id: 'gone', ...data };
    };
    const key: [string, string] = ['idempotency-key', 'hang-up'];
    const text = JSON.stringify(EVENT);
    const headers = signRequest({
      key: alice,
      audience: AUDIENCE,
      method: 'POST',
      target: '/events',
      body: text,
    });
    const lines: Array<[string, string]> = [
      ['authorization', headers.authorization],
      ['x-nonce', headers.nonce],
      ['content-type', 'application/json'],
      key,
    ];
    expect((await send(port, 'POST', '/events', lines, text, { abortAfterMs: 100 })).status).toBe(0);
    open();
    let replayed: Answer | undefined;
    for (let i = 0; i < 50 && replayed?.status !== 201; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      replayed = await signed('POST', '/events', EVENT, [key]);
    }
    expect([replayed?.status, replayed?.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(services.calls).toHaveLength(1);
  });

  it('does not keep an answer over the size cap: the key is given back', async () => {
    await boot({ maxBodyBytes: 16 });
    const key: [string, string] = ['idempotency-key', 'big'];
    expect((await signed('POST', '/events', EVENT, [key])).status).toBe(201);
    const again = await signed('POST', '/events', EVENT, [key]);
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(services.calls).toHaveLength(2);
  });

  it("refuses a key past the agent's cap with 429 idempotency.too_many_keys and Retry-After, running nothing; refusals hold no key", async () => {
    await boot({ store: new MemoryIdempotencyStore({ keysPerAgent: 3 }), keysPerAgent: 3 });
    // Refusals are not kept, so they hold no key: any number of them.
    services.handler = async () => {
      throw new DomainError('event.not_found', 'No such event');
    };
    for (let i = 0; i < 10; i += 1)
      expect(
        (await signed('POST', '/events/e1/stage', { body: 'hi' }, [['idempotency-key', `miss-${i}`]])).status,
      ).toBe(404);
    services.handler = FakeServices.created;
    for (let i = 0; i < 3; i += 1)
      expect((await signed('POST', '/events', EVENT, [['idempotency-key', `kept-${i}`]])).status).toBe(201);
    services.calls = [];
    const over = await signed('POST', '/events', EVENT, [['idempotency-key', 'one-more']]);
    expect([over.status, codeOf(over)]).toEqual([429, 'idempotency.too_many_keys']);
    // Until the soonest of the three expires: 24 hours.
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(86_000);
    expect(services.calls).toHaveLength(0);
    // A kept key still replays; another agent has keys of its own; a write without a key runs.
    expect(
      (await signed('POST', '/events', EVENT, [['idempotency-key', 'kept-0']])).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
    expect((await signed('POST', '/events', EVENT, [['idempotency-key', 'one-more']], bob)).status).toBe(201);
    expect((await signed('POST', '/events', EVENT)).status).toBe(201);
  });

  it('answers 503 service.overloaded when the process holds as many keys as it may; a replay still works', async () => {
    await boot({ store: new MemoryIdempotencyStore({ maxKeys: 2 }) });
    for (const key of ['a', 'b'])
      expect((await signed('POST', '/events', EVENT, [['idempotency-key', key]], bob)).status).toBe(201);
    const full = await signed('POST', '/events', EVENT, [['idempotency-key', 'c']]);
    expect([full.status, codeOf(full), full.headers['retry-after']]).toEqual([
      503,
      'service.overloaded',
      '1',
    ]);
    expect(
      (await signed('POST', '/events', EVENT, [['idempotency-key', 'a']], bob)).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
  });

  it('fails closed (503 dependency.unavailable) when the store cannot answer', async () => {
    const broken: IdempotencyStore = {
      begin: async (): Promise<Begun> => {
        throw new Error('ECONNREFUSED');
      },
      complete: async () => false,
      release: async () => {},
    };
    await boot({ store: broken });
    const answer = await signed('POST', '/events', EVENT, [['idempotency-key', 'down']]);
    expect([answer.status, codeOf(answer), answer.headers['retry-after']]).toEqual([
      503,
      'dependency.unavailable',
      '1',
    ]);
    expect(services.calls).toHaveLength(0);
    // Without a key the request does not need the store.
    expect((await signed('POST', '/events', EVENT)).status).toBe(201);
  });
});

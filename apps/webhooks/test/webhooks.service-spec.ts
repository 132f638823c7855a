// The webhooks service on its own (the service tier: libs/testing/src/service.ts): its contracts,
// and domain events delivered to its fan-out consumer as the stream would, with receivers on
// 127.0.0.1 that record every request. Signatures are verified here, from the spec, with the
// public key the service publishes and node:crypto: nothing of the service's signer is used.
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { generateAgentKey } from '@townhall/auth';
import { Webhooks, type CloudEvent, type WebhookKey } from '@townhall/contracts';
import { ConfigError, createLogger } from '@townhall/platform/service';
import {
  aLedgerEntryView,
  anEventView,
  anIssuedTicketView,
  aQuestionView,
  waitFor,
  WebhookReceiver,
  type ReceivedWebhook,
} from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { createWebhooksDataSource } from '../src/data-source.js';
import { DeliveryRetention } from '../src/delivery/delivery-retention.js';
import { webhooks as webhooksService, WebhookSigner } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const codeOf = async (promise: Promise<unknown>) => (await refusalOf(promise)).code;
const SIGNING_KEY = WebhookSigner.generate().secret;

/** Standard Webhooks v1a, from the spec: Ed25519 over `<id>.<timestamp>.<raw body>`, fresh timestamp. */
function verifies(key: WebhookKey, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const raw = Buffer.from(key.publicKey.replace(/^whpk_/, ''), 'base64');
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      return version === 'v1a' && verify(null, signed, publicKey, Buffer.from(signature ?? '', 'base64'));
    });
}

function domainEvent(type: string, subject: string, data: unknown, visibility?: 'staff'): CloudEvent {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'townhall/test',
    type,
    time: new Date().toISOString(),
    subject,
    datacontenttype: 'application/json',
    ...(visibility ? { visibility } : {}),
    data,
  };
}

const eventView = (id: string, hostId: string) =>
  anEventView({ id, hostId, title: 'AMA', status: 'scheduled' });
const typesOf = (requests: ReceivedWebhook[]) =>
  requests.map((request) => (JSON.parse(request.body.toString('utf8')) as CloudEvent).type);

describe('webhooks service', () => {
  let service: ServiceHarness;
  let receiver: WebhookReceiver;
  let key: WebhookKey;

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      ServiceHarness.start(webhooksService, {
        WEBHOOK_SIGNING_KEY: SIGNING_KEY,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_WINDOW_MS: '2000',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
      }),
      WebhookReceiver.start(),
    ]);
    key = await service.send(Webhooks.key, {});
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  const create = (caller: string | null, input: Parameters<typeof Webhooks.create.request.parse>[0]) =>
    service.send(Webhooks.create, input as never, caller);

  it('publishes the public half of WEBHOOK_SIGNING_KEY, to anyone', async () => {
    expect(key).toEqual(WebhookSigner.fromSecret(SIGNING_KEY).key);
    expect(key.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
  });

  it("creates, lists and deletes an agent's subscriptions; another agent sees none of them", async () => {
    const [alice, bob] = [agent(), agent()];
    const eventId = randomUUID();
    const first = await create(alice, { url: receiver.url('/a'), types: ['townhall.event.*'] });
    expect(first).toEqual({
      id: expect.any(String),
      url: receiver.url('/a'),
      types: ['townhall.event.*'],
      eventId: null,
      createdAt: expect.any(String),
    });
    const second = await create(alice, {
      url: receiver.url('/b'),
      types: ['townhall.ticket.issued', 'townhall.ticket.issued', 'townhall.question.*'],
      eventId: eventId.toUpperCase(),
    });
    expect(second).toMatchObject({ types: ['townhall.ticket.issued', 'townhall.question.*'], eventId });
    expect((await service.send(Webhooks.list, {}, alice)).items).toEqual([first, second]);
    expect(await service.send(Webhooks.list, {}, bob)).toEqual({ items: [], nextCursor: null });

    expect(await codeOf(service.send(Webhooks.delete, { webhookId: first.id }, bob))).toBe(
      'webhook.not_found',
    );
    expect(await codeOf(service.send(Webhooks.deliveries, { webhookId: first.id }, bob))).toBe(
      'webhook.not_found',
    );
    expect(await service.send(Webhooks.delete, { webhookId: first.id }, alice)).toEqual(first);
    expect(await codeOf(service.send(Webhooks.delete, { webhookId: first.id }, alice))).toBe(
      'webhook.not_found',
    );
    expect(await codeOf(service.send(Webhooks.delete, { webhookId: 'nope' }, alice))).toBe(
      'webhook.not_found',
    );
    expect((await service.send(Webhooks.list, {}, alice)).items).toEqual([second]);
  });

  it('refuses bad input with validation.failed before anything is written, and an unsigned request', async () => {
    const dave = agent();
    for (const input of [
      { url: receiver.url(), types: [] },
      { url: receiver.url(), types: ['townhall.event.started', 'townhall.nothing.happened'] },
      { url: receiver.url(), types: ['townhall.>'] },
      { url: receiver.url(), types: ['townhall.*.*'] },
      { url: receiver.url(), types: ['townhall.unknown.*'] },
      { url: receiver.url(), types: ['*'] },
      { url: 'ftp://example.com/', types: ['townhall.event.*'] },
      { url: 'http://user:secret@example.com/', types: ['townhall.event.*'] },
      { url: 'not a url', types: ['townhall.event.*'] },
      { url: receiver.url(), types: ['townhall.event.*'], eventId: 'not-an-event' },
      { url: receiver.url(), types: ['townhall.event.*'], extra: true },
      { url: receiver.url(), types: Array.from({ length: 51 }, () => 'townhall.event.*') },
    ]) {
      expect([input, await codeOf(create(dave, input as never))]).toEqual([input, 'validation.failed']);
    }
    expect(await codeOf(create(null, { url: receiver.url(), types: ['townhall.event.*'] }))).toBe(
      'auth.malformed',
    );
    expect(await codeOf(service.send(Webhooks.list, {}, null))).toBe('auth.malformed');
    expect((await service.send(Webhooks.list, {}, dave)).items).toEqual([]);
  });

  it('holds an agent to 20 subscriptions, however many are made at once', async () => {
    const erin = agent();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 25 }, (_, index) =>
        create(erin, { url: receiver.url(`/limit/${index}`), types: ['townhall.ledger.*'] }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(20);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect(outcome.reason).toMatchObject({ code: 'webhook.limit_reached' });
    const held = (await service.send(Webhooks.list, {}, erin)).items;
    expect(held).toHaveLength(20);
    await service.send(Webhooks.delete, { webhookId: held[0]!.id }, erin);
    await create(erin, { url: receiver.url('/limit/again'), types: ['townhall.ledger.*'] });
    expect(
      await codeOf(create(erin, { url: receiver.url('/limit/over'), types: ['townhall.ledger.*'] })),
    ).toBe('webhook.limit_reached');
    // Another agent has 20 of its own.
    await create(agent(), { url: receiver.url('/limit/other'), types: ['townhall.ledger.*'] });
  });

  it('delivers to each agent what it may see, signed, once, and never another host’s events', async () => {
    const [host, otherHost, holder, stranger] = [agent(), agent(), agent(), agent()];
    const [event, otherEvent, hostsSecond] = [randomUUID(), randomUUID(), randomUUID()];
    const everything = ['townhall.event.*', 'townhall.ticket.*', 'townhall.question.*', 'townhall.ledger.*'];
    await create(host, { url: receiver.url('/host'), types: everything });
    await create(host, {
      url: receiver.url('/host-narrow'),
      types: ['townhall.event.*'],
      eventId: hostsSecond,
    });
    await create(otherHost, { url: receiver.url('/other-host'), types: everything });
    await create(holder, { url: receiver.url('/holder'), types: everything });
    await create(stranger, { url: receiver.url('/stranger'), types: everything });

    const question = aQuestionView({ eventId: event, authorId: holder, state: 'pending' });
    const stream = [
      domainEvent('townhall.event.scheduled', event, eventView(event, host)),
      domainEvent('townhall.event.scheduled', otherEvent, eventView(otherEvent, otherHost)),
      domainEvent('townhall.event.scheduled', hostsSecond, eventView(hostsSecond, host)),
      domainEvent('townhall.ticket.issued', event, anIssuedTicketView(event, holder)),
      domainEvent('townhall.event.started', event, { ...eventView(event, host), status: 'live' }),
      domainEvent('townhall.question.submitted', event, question, 'staff'),
      domainEvent(
        'townhall.ledger.entry_recorded',
        holder,
        aLedgerEntryView({ agentId: holder, eventId: event, amount: '-100' }),
      ),
      domainEvent(
        'townhall.ledger.entry_recorded',
        host,
        aLedgerEntryView({ agentId: host, eventId: event, amount: '100' }),
      ),
    ];
    for (const each of stream) await service.deliver(each);
    // Redelivered (an acknowledgement lost): fanned out once all the same.
    await service.redeliver(stream[4]!);

    const [forHost, forOtherHost, forHolder, narrow] = await Promise.all([
      receiver.waitFor(5, '/host'),
      receiver.waitFor(1, '/other-host'),
      receiver.waitFor(3, '/holder'),
      receiver.waitFor(1, '/host-narrow'),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more comes
    expect(typesOf(receiver.at('/host')).sort()).toEqual(
      [
        'townhall.event.scheduled',
        'townhall.event.scheduled',
        'townhall.ticket.issued',
        'townhall.event.started',
        'townhall.question.submitted',
        'townhall.ledger.entry_recorded',
      ].sort(),
    );
    expect(typesOf(receiver.at('/other-host'))).toEqual(['townhall.event.scheduled']);
    expect(JSON.parse(forOtherHost[0]!.body.toString()).subject).toBe(otherEvent);
    // The holder: its ticket, the lifecycle of its event from then on, its own ledger entry.
    expect(typesOf(receiver.at('/holder')).sort()).toEqual(
      ['townhall.ticket.issued', 'townhall.event.started', 'townhall.ledger.entry_recorded'].sort(),
    );
    expect(receiver.at('/stranger')).toEqual([]);
    expect(narrow.map((request) => JSON.parse(request.body.toString()).subject)).toEqual([hostsSecond]);

    for (const request of [...forHost, ...forOtherHost, ...forHolder, ...narrow]) {
      expect(verifies(key, request.headers, request.body)).toBe(true);
      const body = JSON.parse(request.body.toString('utf8')) as CloudEvent;
      expect(request.headers['webhook-id']).toBe(body.id);
      expect(request.headers['content-type']).toBe('application/json');
      // The body is the CloudEvent as it was published.
      expect(body).toEqual(stream.find((each) => each.id === body.id));
    }
    const ids = receiver.at('/host').map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('retries a failing receiver with backoff, logs every attempt, and stops once it is delivered', async () => {
    const host = agent();
    const event = randomUUID();
    receiver.answerWith((request) => {
      if (request.path !== '/flaky') return 204;
      return receiver.at('/flaky').length <= 2 ? 500 : 200;
    });
    const webhook = await create(host, { url: receiver.url('/flaky'), types: ['townhall.event.*'] });
    await service.deliver(domainEvent('townhall.event.scheduled', event, eventView(event, host)));
    const requests = await receiver.waitFor(3, '/flaky');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.at('/flaky')).toHaveLength(3);
    // The same message each time, signed afresh.
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.body.toString())).size).toBe(1);
    for (const request of requests) expect(verifies(key, request.headers, request.body)).toBe(true);
    // Backoff: 100 ms, then 200 ms (and a poll of 50 ms at most late).
    const gaps = requests.slice(1).map((request, index) => request.receivedAt - requests[index]!.receivedAt);
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);

    const attempts = (await service.send(Webhooks.deliveries, { webhookId: webhook.id }, host)).items;
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 3, status: 200, error: null, outcome: 'delivered' }),
      expect.objectContaining({ attempt: 2, status: 500, outcome: 'retrying' }),
      expect.objectContaining({ attempt: 1, status: 500, outcome: 'retrying' }),
    ]);
    // The status only: what the receiver answered is never kept (it said 'receiver says no').
    expect(attempts[1]!.error).toBe('HTTP 500');
    for (const attempt of attempts) {
      expect(attempt.webhookId).toBe(requests[0]!.headers['webhook-id']);
      expect(attempt.type).toBe('townhall.event.scheduled');
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.attemptedAt)).not.toBeNaN();
    }
  });

  it('keeps a receiver that hangs to 4 attempts at once, while others are delivered', async () => {
    const host = agent();
    let hanging = true;
    receiver.answerWith((request) => (request.path === '/hangs' && hanging ? 'hang' : 204));
    await create(host, { url: receiver.url('/hangs'), types: ['townhall.event.*'] });
    await create(host, { url: receiver.url('/quick'), types: ['townhall.event.*'] });
    for (let index = 0; index < 8; index++) {
      const event = randomUUID();
      await service.deliver(domainEvent('townhall.event.scheduled', event, eventView(event, host)));
    }
    await receiver.waitFor(8, '/quick', 2_000);
    expect(receiver.at('/hangs')).toHaveLength(4);
    hanging = false;
    // The hung attempts time out (1 s) and are retried; the other four go as slots free up.
    const delivered = await waitFor('all eight delivered to the slow receiver', async () => {
      const done = receiver.at('/hangs').filter((request) => request.status === 204);
      return done.length >= 8 ? done : undefined;
    });
    expect(new Set(delivered.map((request) => request.headers['webhook-id'])).size).toBe(8);
  });

  it('gives up after the retry window, and a deleted subscription gets no more attempts', async () => {
    const host = agent();
    const event = randomUUID();
    receiver.answerWith((request) => (request.path === '/down' || request.path === '/deleted' ? 503 : 204));
    const down = await create(host, { url: receiver.url('/down'), types: ['townhall.event.*'] });
    const deleted = await create(host, { url: receiver.url('/deleted'), types: ['townhall.event.*'] });
    await service.deliver(domainEvent('townhall.event.scheduled', event, eventView(event, host)));
    await receiver.waitFor(2, '/deleted');
    await service.send(Webhooks.delete, { webhookId: deleted.id }, host);
    const countAfterDelete = receiver.at('/deleted').length;

    // Attempts at about 0, 0.1, 0.3, 0.7 and 1.5 s; the next (3.1 s) would pass the 2 s window.
    const attempts = await waitFor(
      'the delivery given up',
      async () => {
        const { items } = await service.send(Webhooks.deliveries, { webhookId: down.id }, host);
        return items[0]?.outcome === 'given_up' ? items : undefined;
      },
      10_000,
    );
    expect(attempts.map((attempt) => attempt.outcome)).toEqual([
      'given_up',
      'retrying',
      'retrying',
      'retrying',
      'retrying',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/down')).toHaveLength(5);
    expect(receiver.at('/deleted')).toHaveLength(countAfterDelete);
    const rows = await service.query<{ state: string }>(
      `SELECT d.state FROM webhooks.deliveries d WHERE d.subscription_id = $1`,
      [down.id],
    );
    expect(rows).toEqual([{ state: 'given_up' }]);
  });

  it('prunes: the latest 100 attempts per subscription, concluded deliveries after a day, old marks', async () => {
    const host = agent();
    const webhook = await create(host, { url: receiver.url('/pruned'), types: ['townhall.event.*'] });
    const [old, orphan] = [randomUUID(), randomUUID()];
    await service.query(
      `INSERT INTO webhooks.messages (id, type, body, created_at) VALUES
         ($1, 'townhall.event.scheduled', '{}', now() - interval '2 days'),
         ($2, 'townhall.event.scheduled', '{}', now() - interval '2 days')`,
      [old, orphan],
    );
    await service.query(
      `INSERT INTO webhooks.deliveries (subscription_id, message_id, state, concluded_at) VALUES
         ($1, $2, 'delivered', now() - interval '2 days')`,
      [webhook.id, old],
    );
    await service.query(
      `INSERT INTO webhooks.attempts
         (subscription_id, message_id, type, attempt, attempted_at, duration_ms, outcome)
       SELECT $1, $2, 'townhall.event.scheduled', n, now(), 1, 'retrying' FROM generate_series(1, 105) AS n`,
      [webhook.id, old],
    );
    await service.query(
      `INSERT INTO webhooks.processed_events (consumer, event_id, processed_at) VALUES
         ('webhooks-fan-out', $1, now() - interval '40 days')`,
      [randomUUID()],
    );
    const dataSource = createWebhooksDataSource(service.database.url, { size: 1 });
    await dataSource.initialize();
    try {
      const retention = new DeliveryRetention(dataSource);
      // 5 attempts, the old delivery, both messages (no delivery left), the old mark; maybe others'.
      expect(await retention.prune()).toBeGreaterThanOrEqual(9);
    } finally {
      await dataSource.destroy();
    }
    const { items } = await service.send(Webhooks.deliveries, { webhookId: webhook.id }, host);
    expect(items.map((item) => item.attempt)).toEqual(Array.from({ length: 100 }, (_, index) => 105 - index));
    expect(
      await service.query(`SELECT id FROM webhooks.messages WHERE id = ANY($1::uuid[])`, [[old, orphan]]),
    ).toEqual([]);
    expect(
      await service.query(
        `SELECT 1 FROM webhooks.processed_events WHERE processed_at < now() - interval '31 days'`,
      ),
    ).toEqual([]);
  });

  it('reads WEBHOOK_SIGNING_KEY at start: required outside development, in its whsk_ form', async () => {
    const logger = createLogger('webhooks', 'silent');
    const define = (env: Record<string, string>) => webhooksService.defineFrom(env, logger);
    await expect(define({ TOWNHALL_ENV: 'production' })).rejects.toThrow(
      /WEBHOOK_SIGNING_KEY: required in production/,
    );
    await expect(define({ TOWNHALL_ENV: 'staging' })).rejects.toThrow(
      /WEBHOOK_SIGNING_KEY: required in staging/,
    );
    await expect(define({ WEBHOOK_SIGNING_KEY: 'secret' })).rejects.toThrow(ConfigError);
    await expect(
      define({ TOWNHALL_ENV: 'production', WEBHOOK_SIGNING_KEY: SIGNING_KEY, WEBHOOK_ALLOW_PRIVATE: 'true' }),
    ).rejects.toThrow(/WEBHOOK_ALLOW_PRIVATE: must not be true in production/);
  });
});

describe('webhooks service, private addresses refused (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  let service: ServiceHarness;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      ServiceHarness.start(webhooksService, {
        WEBHOOK_SIGNING_KEY: SIGNING_KEY,
        WEBHOOK_ALLOW_PRIVATE: 'false',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_POLL_INTERVAL_MS: '50',
      }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('refuses a URL whose host is or resolves to a private, loopback or link-local address', async () => {
    const alice = agent();
    for (const url of [
      receiver.url(),
      'http://localhost:8080/hooks',
      'http://[::1]/hooks',
      'http://[::ffff:127.0.0.1]/hooks',
      'http://2130706433/hooks',
      'http://10.0.0.1/hooks',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/hooks',
      'http://100.64.0.1/hooks',
      'https://does-not-resolve.invalid/hooks',
    ]) {
      const refusal = await refusalOf(
        service.send(Webhooks.create, { url, types: ['townhall.event.*'] }, alice),
      );
      expect([url, refusal.code]).toEqual([url, 'webhook.url_refused']);
    }
    expect((await service.send(Webhooks.list, {}, alice)).items).toEqual([]);
  });

  it('checks again before every attempt: an address that turned private is never connected to', async () => {
    // As if the URL's name had resolved to a public address when the subscription was made, and
    // now resolves inside (DNS rebinding): written straight to the table, with the notice the
    // service's own writes send (the replicas' in-memory index of subscribed types hears it).
    const host = agent();
    const [subscription] = await service.query<{ id: string }>(
      `INSERT INTO webhooks.subscriptions (id, agent_id, url, types) VALUES ($1, $2, $3, $4) RETURNING id`,
      [randomUUID(), host, receiver.url('/rebound'), ['townhall.event.*']],
    );
    await service.query(`SELECT pg_notify('webhooks_subscriptions', '')`);
    await waitFor('a delivery once the notice is heard', async () => {
      const event = randomUUID();
      await service.deliver(domainEvent('townhall.event.scheduled', event, eventView(event, host)));
      const rows = await service.query('SELECT 1 FROM webhooks.deliveries WHERE subscription_id = $1', [
        subscription!.id,
      ]);
      return rows.length > 0 ? true : undefined;
    });
    const attempts = await waitFor('two refused attempts', async () => {
      const { items } = await service.send(Webhooks.deliveries, { webhookId: subscription!.id }, host);
      return items.length >= 2 ? items : undefined;
    });
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ status: null, outcome: 'retrying' });
      expect(attempt.error).toBe('refused: 127.0.0.1: loopback (127.0.0.0/8) addresses are not delivered to');
    }
    expect(receiver.received).toEqual([]);
  });
});

/** Three replicas' delivery workers, each polling every 20 ms, racing for the same deliveries. */
const REPLICA_ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_TIMEOUT_MS: '1000',
};

describe('webhooks service: three replicas', () => {
  let service: ServiceHarness;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      ServiceHarness.start(webhooksService, { ...REPLICA_ENV, WEBHOOK_SIGNING_KEY: SIGNING_KEY }),
      WebhookReceiver.start(),
    ]);
    await service.startReplica();
    await service.startReplica();
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it("delivers each event once, whichever replica's worker takes it, with the write's traceparent", async () => {
    const host = agent();
    await service.send(
      Webhooks.create,
      { url: receiver.url('/replicas'), types: ['townhall.event.*'] },
      host,
    );
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const stream = Array.from({ length: 60 }, (_, index) => {
      const event = randomUUID();
      return {
        ...domainEvent('townhall.event.scheduled', event, eventView(event, host)),
        ...(index === 0 ? { traceparent } : {}),
      };
    });
    // All at once: three workers polling every 20 ms race for the deliveries.
    await Promise.all(stream.map((each) => service.deliver(each)));
    await receiver.waitFor(60, '/replicas');
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more comes
    const received = receiver.at('/replicas');
    const ids = received.map((request) => String(request.headers['webhook-id']));
    expect(ids.sort()).toEqual(stream.map((each) => each.id).sort());
    // A delivery continues the trace of the write that made its event; the others carry none.
    const traced = received.filter((request) => request.headers['traceparent'] !== undefined);
    expect(traced.map((request) => [request.headers['webhook-id'], request.headers['traceparent']])).toEqual([
      [stream[0]!.id, traceparent],
    ]);
    const attempts = await service.query<{ attempts: number }>(
      `SELECT count(*)::int AS attempts FROM webhooks.attempts a
         JOIN webhooks.subscriptions s ON s.id = a.subscription_id
        WHERE s.agent_id = $1`,
      [host],
    );
    expect(attempts[0]!.attempts).toBe(60);
  });
});

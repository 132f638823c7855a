// Webhooks end to end on the distributed topology (every app its own process, real NATS,
// PostgreSQL and Redis): agents subscribe over signed HTTP, domain events reach receivers on
// 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true for the webhooks service only), and every delivery is
// verified HERE, from the Standard Webhooks spec, with node:crypto and nothing but the public key
// the gateway serves at /.well-known/townhall/webhook-key. The npm package `standardwebhooks`
// verifies only the symmetric `v1` (HMAC) scheme, not `v1a` (Ed25519), so it cannot serve here.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  TOWNHALL_STREAM,
  type CloudEvent,
  type EventFieldsInput,
  type WebhookKey,
  type WebhookView,
} from '@townhall/contracts';
import { AgentClient, verifyWebhook, type RsvpTicketResult } from '@townhall/sdk';
import {
  freePort,
  refusal,
  StandaloneProcess,
  Topology,
  waitFor,
  WebhookReceiver,
  type ReceivedWebhook,
} from '@townhall/testing';

const HOUR = 3_600_000;
const TOLERANCE_SECONDS = 5 * 60;

function anEvent(title: string): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title,
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 50,
  };
}

/**
 * A receiver's check of one delivery, as the spec says ("Verifying signatures"): the
 * timestamp within tolerance, then each `v1a,<base64>` of the space-separated list tried as an
 * Ed25519 signature of `<webhook-id>.<webhook-timestamp>.<raw body bytes>`.
 */
function verifyDelivery(publicKey: KeyObject, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    return false;
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1a' && verify(null, signed, publicKey, Buffer.from(signature ?? '', 'base64'));
  });
}

/** The `whpk_` key of the well-known document, as a node:crypto key (raw 32 bytes -> JWK). */
function importPublicKey(key: WebhookKey): KeyObject {
  expect(key.algorithm).toBe('ed25519');
  const raw = Buffer.from(key.publicKey.replace(/^whpk_/, ''), 'base64');
  expect(raw).toHaveLength(32);
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}

const eventOf = (request: ReceivedWebhook) => JSON.parse(request.body.toString('utf8')) as CloudEvent;
const typesOf = (requests: ReceivedWebhook[]) => requests.map((request) => eventOf(request).type);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks, end to end on the distributed topology', () => {
  let topology: Topology;
  let receiver: WebhookReceiver;
  let publicKey: KeyObject;
  let keyDocument: WebhookKey;

  const subscribe = (agent: AgentClient, path: string, types: string[], eventId?: string) =>
    agent.webhooks.create({ url: receiver.url(path), types, ...(eventId ? { eventId } : {}) });
  /** Every request verifies with the public key alone (and so with the SDK's helper). */
  const expectVerified = (requests: ReceivedWebhook[]) => {
    for (const request of requests) {
      expect(verifyDelivery(publicKey, request.headers, request.body)).toBe(true);
      expect(request.headers['webhook-id']).toBe(eventOf(request).id);
      expect(verifyWebhook(request.headers, request.body, keyDocument)).toEqual(eventOf(request));
    }
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    topology = await Topology.start({
      serviceEnv: {
        // Reminders 15 minutes ahead (the default), looked for every 200 ms.
        events: { EVENT_REMINDER_INTERVAL_MS: '200' },
        webhooks: {
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_BASE_MS: '300',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_TIMEOUT_MS: '2000',
          // One key across the restart below (without it, a development process makes one up).
          WEBHOOK_SIGNING_KEY: `whsk_${Buffer.alloc(32, 7).toString('base64')}`,
        },
      },
    });
    // Public: no signature, no account.
    const response = await fetch(`${topology.baseUrl}/.well-known/townhall/webhook-key`);
    expect(response.status).toBe(200);
    keyDocument = (await response.json()) as WebhookKey;
    publicKey = importPublicKey(keyDocument);
  });
  afterAll(async () => {
    await topology?.stop();
    await receiver?.stop();
  });

  // First in this topology: no subscription exists yet.
  it('pulls no domain event while nobody subscribes, then knows what happened meanwhile', async () => {
    const [host, holder] = [topology.client(), topology.client()];
    const event = await host.events.create(anEvent('Before any subscription'));
    await holder.tickets.rsvp(event.id);
    await host.events.start(event.id);
    const nc = await topology.connectNats('webhooks');
    try {
      const jsm = await jetstreamManager(nc);
      // The three writes reach the stream through each service's outbox relay, a moment after
      // their answers; the fan-out's durable counts them as pending once they are there.
      const paused = await waitFor('the three writes on the stream, pending for the fan-out', async () => {
        const { state } = await jsm.streams.info(TOWNHALL_STREAM);
        if (state.messages < 3) return undefined;
        const consumer = await jsm.consumers.info(TOWNHALL_STREAM, 'webhooks-fan-out');
        return consumer.num_pending === state.messages ? consumer : undefined;
      });
      // The fan-out's durable keeps its place at the start: NATS delivered it nothing.
      expect(paused.delivered.consumer_seq).toBe(0);
    } finally {
      await nc.close();
    }

    // The first subscription opens it: the ticket bought meanwhile makes its holder part of the
    // event's audience (the fan-out's projection of tickets, caught up from the stream first).
    await pause(1_100); // past the second of grace a new subscription gives earlier events
    await subscribe(holder, '/first-subscriber', ['townhall.event.*', 'townhall.ticket.*']);
    await host.events.end(event.id);
    const [delivery] = await receiver.waitFor(1, '/first-subscriber');
    expect(eventOf(delivery!).type).toBe('townhall.event.ended');
    await pause(500);
    expect(typesOf(receiver.at('/first-subscriber'))).toEqual(['townhall.event.ended']);
  });

  it('delivers to each agent what it may see, signed, and no agent receives another host’s events', async () => {
    const [alice, bob, carol] = [topology.client(), topology.client(), topology.client()];
    const everything = ['townhall.event.*', 'townhall.ticket.*', 'townhall.question.*', 'townhall.stage.*'];
    const created = await subscribe(alice, '/alice', everything);
    expect(created).toEqual({
      id: expect.any(String),
      url: receiver.url('/alice'),
      types: everything,
      eventId: null,
      createdAt: expect.any(String),
    });
    await subscribe(bob, '/bob', everything);
    await subscribe(carol, '/carol', everything);
    expect((await alice.webhooks.list()).items).toEqual([created]);
    expect(await bob.webhooks.key()).toEqual(keyDocument);

    const alicesEvent = await alice.events.create(anEvent("Alice's AMA"));
    const bobsEvent = await bob.events.create(anEvent("Bob's AMA"));
    const ticket = (await carol.tickets.rsvp(alicesEvent.id)) as RsvpTicketResult;
    await alice.events.start(alicesEvent.id);
    await bob.events.start(bobsEvent.id);
    await alice.stage.post(alicesEvent.id, 'Welcome');

    // Alice: her event's lifecycle, the ticket to it, her stage; Bob: his event's lifecycle;
    // Carol: her ticket and the lifecycle of the event she holds it for, from then on.
    const [forAlice, forBob, forCarol] = await Promise.all([
      receiver.waitFor(4, '/alice'),
      receiver.waitFor(2, '/bob'),
      receiver.waitFor(2, '/carol'),
    ]);
    await pause(700);
    // (Deliveries are not ordered: a replica attempts several at once.)
    expect(typesOf(receiver.at('/alice')).sort()).toEqual([
      'townhall.event.scheduled',
      'townhall.event.started',
      'townhall.stage.posted',
      'townhall.ticket.issued',
    ]);
    expect(typesOf(receiver.at('/bob')).sort()).toEqual([
      'townhall.event.scheduled',
      'townhall.event.started',
    ]);
    expect(typesOf(receiver.at('/carol')).sort()).toEqual([
      'townhall.event.started',
      'townhall.ticket.issued',
    ]);
    for (const request of receiver.at('/alice')) expect(eventOf(request).subject).toBe(alicesEvent.id);
    for (const request of receiver.at('/bob')) expect(eventOf(request).subject).toBe(bobsEvent.id);
    expect(
      eventOf(forCarol.find((request) => eventOf(request).type === 'townhall.ticket.issued')!).data,
    ).toEqual(ticket.ticket);
    expectVerified([...forAlice, ...forBob, ...forCarol]);

    // What a receiver sees: the Standard Webhooks headers and the CloudEvent as the body.
    const sample = forAlice[0]!;
    const shown = Object.fromEntries(
      ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
        name,
        sample.headers[name],
      ]),
    );
    process.stdout.write(
      `A delivery as received (keyId ${keyDocument.keyId}):\n${JSON.stringify(shown, null, 2)}\n`,
    );
    expect(shown['content-type']).toBe('application/json');
    expect(shown['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);

    const attempts = (await alice.webhooks.deliveries(created.id)).items;
    expect(attempts).toHaveLength(4);
    for (const attempt of attempts)
      expect(attempt).toMatchObject({ status: 204, error: null, outcome: 'delivered' });
    // Another agent's subscription is nobody's business but its owner's.
    expect(await refusal(bob.webhooks.deliveries(created.id))).toEqual({
      status: 404,
      code: 'webhook.not_found',
    });
    expect(await refusal(bob.webhooks.delete(created.id))).toEqual({
      status: 404,
      code: 'webhook.not_found',
    });
    expect(await alice.webhooks.delete(created.id)).toEqual(created);
    expect((await alice.webhooks.list()).items).toEqual([]);
  });

  it('reminds the host and each ticket holder once before the event starts, and nobody else', async () => {
    const [host, holder, stranger] = [topology.client(), topology.client(), topology.client()];
    await subscribe(host, '/reminder-host', ['townhall.event.starting_soon']);
    await subscribe(holder, '/reminder-holder', ['townhall.event.starting_soon', 'townhall.ticket.issued']);
    await subscribe(stranger, '/reminder-stranger', ['townhall.event.*']);
    const event = await host.events.create(anEvent('Reminded'));
    await holder.tickets.rsvp(event.id);
    // The holder's ticket has reached the webhooks service: the reminder will find it.
    await receiver.waitFor(1, '/reminder-holder');

    // The host brings the start within the lead (15 minutes): the next look reminds.
    const startsAt = new Date(Date.now() + 10 * 60_000);
    const moved = await host.events.update(event.id, {
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    });
    const [forHost, forHolder] = await Promise.all([
      receiver.waitFor(1, '/reminder-host'),
      receiver.waitFor(2, '/reminder-holder'),
    ]);
    await pause(1_000);
    expect(typesOf(receiver.at('/reminder-host'))).toEqual(['townhall.event.starting_soon']);
    expect(typesOf(receiver.at('/reminder-holder')).sort()).toEqual([
      'townhall.event.starting_soon',
      'townhall.ticket.issued',
    ]);
    expect(receiver.at('/reminder-stranger')).toEqual([]);
    const reminder = eventOf(forHost[0]!);
    expect(reminder).toMatchObject({ source: 'townhall/events', subject: event.id });
    expect(reminder.data).toMatchObject({ id: event.id, startsAt: moved.startsAt, status: 'scheduled' });
    expect(eventOf(forHolder.find((request) => eventOf(request).type === reminder.type)!).id).toBe(
      reminder.id,
    );
    expectVerified([...forHost, ...forHolder]);
  });

  it('retries a receiver that fails twice: three requests in all, then no more', async () => {
    const host = topology.client();
    receiver.answerWith((request) =>
      request.path === '/flaky' ? (receiver.at('/flaky').length <= 2 ? 500 : 200) : 204,
    );
    const webhook = await subscribe(host, '/flaky', ['townhall.event.scheduled']);
    await host.events.create(anEvent('Flaky'));
    const requests = await receiver.waitFor(3, '/flaky');
    await pause(2_500); // the next retry would have come after 1.2 s
    expect(receiver.at('/flaky')).toHaveLength(3);
    expect(requests.map((request) => request.status)).toEqual([500, 500, 200]);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expectVerified(requests);
    const attempts = (await host.webhooks.deliveries(webhook.id)).items;
    expect(attempts.map(({ attempt, status, outcome }) => ({ attempt, status, outcome }))).toEqual([
      { attempt: 3, status: 200, outcome: 'delivered' },
      { attempt: 2, status: 500, outcome: 'retrying' },
      { attempt: 1, status: 500, outcome: 'retrying' },
    ]);
  });

  it('keeps delivering across a kill -9 of the webhooks service', async () => {
    const host = topology.client();
    let up = false;
    receiver.answerWith((request) => (request.path === '/restart' ? (up ? 204 : 503) : 204));
    const webhook: WebhookView = await subscribe(host, '/restart', ['townhall.event.*']);
    const event = await host.events.create(anEvent('Before the crash'));
    await receiver.waitFor(1, '/restart');
    // Failed, and recorded so: the delivery waits for its retry in Postgres. (A kill before the
    // record is written loses the attempt's outcome, not the delivery: it is tried again.)
    await waitFor('the first attempt recorded as failed', async () =>
      (await host.webhooks.deliveries(webhook.id)).items.some(
        (attempt) => attempt.attempt === 1 && attempt.outcome === 'retrying',
      )
        ? true
        : undefined,
    );

    await topology.service('webhooks').kill();
    // While it is down: another domain event, which its durable consumer catches up on.
    await host.events.update(event.id, { title: 'While it was down' });
    up = true;
    await topology.restartService('webhooks', {}, { kill: true });

    const requests = await waitFor('both events delivered after the restart', async () => {
      const delivered = receiver.at('/restart').filter((request) => request.status === 204);
      return delivered.length >= 2 ? delivered : undefined;
    });
    expect(typesOf(requests).sort()).toEqual(['townhall.event.scheduled', 'townhall.event.updated']);
    expectVerified(requests);
    await pause(700);
    expect(receiver.at('/restart').filter((request) => request.status === 204)).toHaveLength(2);
    const attempts = (await host.webhooks.deliveries(webhook.id)).items;
    expect(attempts.filter((attempt) => attempt.outcome === 'delivered')).toHaveLength(2);
    expect(attempts.at(-1)).toMatchObject({ attempt: 1, status: 503, outcome: 'retrying' });
  });

  it('refuses a private address at subscription when private addresses are not allowed', async () => {
    await topology.restartService('webhooks', { WEBHOOK_ALLOW_PRIVATE: 'false' });
    const agent = topology.client();
    for (const url of [receiver.url('/private'), 'http://localhost:9/x', 'http://[::ffff:10.0.0.1]/x'])
      expect([url, await refusal(agent.webhooks.create({ url, types: ['townhall.event.*'] }))]).toEqual([
        url,
        { status: 400, code: 'webhook.url_refused' },
      ]);
    expect((await agent.webhooks.list()).items).toEqual([]);
    // An unknown type is refused as invalid input, whatever the URL.
    expect(
      await refusal(agent.webhooks.create({ url: 'https://example.com/', types: ['townhall.nope.x'] })),
    ).toEqual({ status: 400, code: 'validation.failed' });
  });
});

describe('webhooks, end to end in standalone mode (one replica, no LISTEN)', () => {
  let standalone: StandaloneProcess;
  let receiver: WebhookReceiver;
  let probePort: number;

  beforeAll(async () => {
    probePort = await freePort();
    [standalone, receiver] = await Promise.all([
      StandaloneProcess.start({ PROBE_PORT: String(probePort) }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await standalone?.stop();
    await receiver?.stop();
  });

  it('passes over what nobody takes, and delivers from the next event once an agent subscribes', async () => {
    const audience = standalone.baseUrl.replace('127.0.0.1', 'localhost');
    const host = new AgentClient({ baseUrl: standalone.baseUrl, audience });
    const passed = async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
      return Number(/townhall_webhook_fanout_events_total\{path="passed"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    };
    const event = await host.events.create(anEvent('Standalone AMA'));
    await waitFor('the scheduled event passed over', async () => ((await passed()) >= 1 ? true : undefined));

    await host.webhooks.create({ url: receiver.url('/standalone'), types: ['townhall.event.*'] });
    await host.events.start(event.id);
    const [delivery] = await receiver.waitFor(1, '/standalone');
    expect(eventOf(delivery!)).toMatchObject({ type: 'townhall.event.started', subject: event.id });
  });
});

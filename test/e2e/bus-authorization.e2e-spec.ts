// The bus has doors (docs/security.md "The bus"): every app reaches NATS as its own user of
// k8s/nats-authorization.conf, which a topology's nats-server starts with, so what each app's
// user can do here is what it can do in a deployment. A compromised app, or any workload that
// reaches port 4222, is held to these answers by NATS itself, whatever it sends.
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import {
  Events,
  EventTopics,
  TOWNHALL_STREAM,
  type EventFieldsInput,
  type EventView,
  type MessageMeta,
} from '@townhall/contracts';
import { NatsServiceClient } from '@townhall/platform';
import type { AgentClient } from '@townhall/sdk';
import { Topology, waitFor } from '@townhall/testing';

const HOUR = 3_600_000;

function anEvent(): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Behind the bus doors',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
  };
}

/** How NATS refused a request: its permissions violation, as the client reports it. */
async function refusal(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    const cause = error instanceof errors.RequestError ? (error.cause ?? error) : error;
    return cause instanceof Error ? cause.message : String(cause);
  }
  throw new Error('NATS answered a request it should have refused');
}

/** A Nest request packet, as the gateway sends one, claiming `caller`. */
function packet(pattern: string, data: unknown, caller: string): string {
  const meta: MessageMeta = { requestId: `bus-${randomUUID()}`, caller };
  return JSON.stringify({ pattern, data: { meta, data }, id: randomUUID() });
}

describe('the bus: each app a NATS user of its own, allowed only what it needs', () => {
  let topology: Topology;
  let host: AgentClient;
  const open: NatsConnection[] = [];
  const as = async (app: Parameters<Topology['connectNats']>[0]) => {
    const nc = await topology.connectNats(app);
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    topology = await Topology.start();
    host = topology.client();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((nc) => nc.close()));
  });
  afterAll(async () => {
    await topology?.stop();
  });

  const statusOf = async (eventId: string) => (await host.events.get(eventId)).status;

  it('refuses a client without credentials, with a wrong password, or as a user that does not exist', async () => {
    const attempts = [{}, { user: 'webhooks', pass: 'not-its-password' }, { user: 'admin', pass: 'admin' }];
    for (const credentials of attempts) {
      const failure = await connect({ servers: topology.natsUrl, ...credentials, reconnect: false }).then(
        async (nc) => {
          await nc.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(String(failure)).toMatch(/Authorization Violation/i);
    }
  });

  it('the webhooks app cannot get events.event.transition answered: NATS refuses it, and the event stays scheduled', async () => {
    const event = await host.events.create(anEvent());
    const webhooks = await as('webhooks');
    const cancel = packet(Events.transition.pattern, { eventId: event.id, action: 'cancel' }, host.agentId);
    expect(await refusal(webhooks.request(Events.transition.pattern, cancel, { timeout: 2_000 }))).toMatch(
      /Permissions Violation for Publish to "events\.event\.transition"/,
    );
    // Through the client every service uses, as a compromised webhooks would: the same refusal.
    const services = new NatsServiceClient(webhooks, 2_000);
    await expect(
      services.send(
        Events.transition,
        { eventId: event.id, action: 'cancel' },
        { requestId: 'x', caller: host.agentId },
      ),
    ).rejects.toMatchObject({ code: 'service.unavailable' });
    expect(await statusOf(event.id)).toBe('scheduled');
  });

  it('a service sends only the requests it calls: ticketing may ask events.event.access, not cancel an event', async () => {
    const event = await host.events.create(anEvent());
    const ticketing = await as('ticketing');
    const services = new NatsServiceClient(ticketing, 5_000);
    expect(
      await services.send(
        Events.access,
        { eventId: event.id, agentId: host.agentId },
        { requestId: 'x', caller: null },
      ),
    ).toMatchObject({ eventId: event.id, role: 'host' });
    const cancel = packet(Events.transition.pattern, { eventId: event.id, action: 'cancel' }, host.agentId);
    expect(await refusal(ticketing.request(Events.transition.pattern, cancel, { timeout: 2_000 }))).toMatch(
      /Permissions Violation for Publish/,
    );
    expect(await statusOf(event.id)).toBe('scheduled');
  });

  it("no other app can serve a service's requests, read another's replies, or announce its domain events", async () => {
    const webhooks = await as('webhooks');
    // Serving the events service's subjects (to answer in its place, or to read what callers send).
    const serving = webhooks.subscribe('events.>', { queue: 'events' });
    expect(String(await serving.closed)).toMatch(/Permissions Violation for Subscription to "events\.>"/);
    // Reading the gateway's replies.
    const replies = webhooks.subscribe('_INBOX_auth-gateway.>');
    expect(String(await replies.closed)).toMatch(/Permissions Violation for Subscription/);

    // A forged `townhall.event.cancelled`, as the webhooks app: JetStream never stores it.
    const gateway = await as('auth-gateway');
    const jsm = await jetstreamManager(gateway);
    const before = (await jsm.streams.info(TOWNHALL_STREAM)).state.last_seq;
    const event = await host.events.create(anEvent());
    const announced = await waitFor('the scheduling on the stream', async () => {
      const last = (await jsm.streams.info(TOWNHALL_STREAM)).state.last_seq;
      return last > before ? last : undefined;
    });
    expect(
      await refusal(
        webhooks.request(EventTopics.cancelled, JSON.stringify({ id: randomUUID() }), { timeout: 2_000 }),
      ),
    ).toMatch(/Permissions Violation for Publish to "townhall\.event\.cancelled"/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await jsm.streams.info(TOWNHALL_STREAM)).state.last_seq).toBe(announced);
    expect(await statusOf(event.id)).toBe('scheduled');
  });

  it("no app binds another's durable consumer; the gateway reads the stream without binding any", async () => {
    const webhooks = await as('webhooks');
    const next = (nc: NatsConnection, durable: string) =>
      nc.request(`$JS.API.CONSUMER.MSG.NEXT.${TOWNHALL_STREAM}.${durable}`, JSON.stringify({ batch: 1 }), {
        timeout: 2_000,
      });
    // Taking ticketing's events away from it (they would be acknowledged elsewhere, never applied).
    expect(await refusal(next(webhooks, 'ticketing-events'))).toMatch(/Permissions Violation for Publish/);
    const gateway = await as('auth-gateway');
    expect(await refusal(next(gateway, 'ticketing-events'))).toMatch(/Permissions Violation for Publish/);
    // Recreating another's durable with a configuration of its own (to skip its events).
    const hijack = JSON.stringify({
      stream_name: TOWNHALL_STREAM,
      config: { durable_name: 'engagement-tickets', ack_policy: 'none', deliver_policy: 'new' },
    });
    for (const nc of [webhooks, gateway]) {
      expect(
        await refusal(
          nc.request(`$JS.API.CONSUMER.CREATE.${TOWNHALL_STREAM}.engagement-tickets.townhall.>`, hijack, {
            timeout: 2_000,
          }),
        ),
      ).toMatch(/Permissions Violation for Publish/);
      // The old subject for ephemeral consumers takes the name from its body: nobody may use it.
      expect(
        await refusal(nc.request(`$JS.API.CONSUMER.CREATE.${TOWNHALL_STREAM}`, hijack, { timeout: 2_000 })),
      ).toMatch(/Permissions Violation for Publish/);
    }
    // What the gateway may do: read the stream through a consumer of its own.
    const { jetstream } = await import('@nats-io/jetstream');
    const reader = await jetstream(gateway).consumers.get(TOWNHALL_STREAM, { filter_subjects: 'townhall.>' });
    await host.events.create(anEvent());
    expect((await reader.next({ expires: 5_000 }))?.subject).toMatch(/^townhall\./);
  });

  it('a message on a service subject that no client asked (no inbox to answer) runs nothing', async () => {
    // What JetStream would deliver if an app could point a consumer's deliver subject, or the
    // stream's republish, at a service's subject: a Nest packet with no client waiting for it.
    const event = await host.events.create(anEvent());
    const gateway = await as('auth-gateway');
    const cancel = packet(Events.transition.pattern, { eventId: event.id, action: 'cancel' }, host.agentId);
    gateway.publish(Events.transition.pattern, cancel);
    // A reply that is no client's inbox (NATS itself refuses a `$JS.ACK.` reply from a client).
    gateway.publish(Events.transition.pattern, cancel, { reply: Events.list.pattern });
    await gateway.flush();
    await waitFor('the events service to say it dropped both', async () =>
      topology.service('events').logs.filter((line) => line.includes('that no client asked')).length >= 2
        ? true
        : undefined,
    );
    expect(await statusOf(event.id)).toBe('scheduled');
    // The same packet, asked by a client, is served.
    const asked = await gateway.request(Events.transition.pattern, cancel, { timeout: 5_000 });
    expect(asked.json<{ response?: EventView }>().response?.status).toBe('cancelled');
  });
});

// What the webhook fan-out costs a write when nobody listens (the service tier:
// libs/testing/src/service.ts): a domain event no subscription takes is passed over in memory,
// before any database work, on every replica; a subscription counts at once where it was made
// and, by Postgres NOTIFY, on the others.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { Webhooks, type CloudEvent } from '@townhall/contracts';
import { domainEvent as announced } from '@townhall/platform/service';
import { anEventView, anIssuedTicketView, waitFor, WebhookReceiver } from '@townhall/testing';
import { ServiceHarness } from '@townhall/testing/service';
import { SUBSCRIPTIONS_CHANNEL } from '../src/subscriptions/subscription-index.js';
import { webhooks as webhooksService, WebhookSigner } from '../src/service.js';

const agent = () => generateAgentKey().agentId;

/** A domain event of another service, as the stream hands it over. */
const domainEvent = (type: string, subject: string, data: unknown): CloudEvent =>
  announced({ source: 'townhall/test', type, subject, data });

describe('webhooks service: the fan-out when nobody listens', () => {
  let service: ServiceHarness;
  let replica: { deliver(event: CloudEvent): Promise<void> };
  let receiver: WebhookReceiver;
  const host = agent();
  const eventId = randomUUID();
  const question = () =>
    domainEvent('townhall.question.submitted', eventId, {
      id: randomUUID(),
      eventId,
      authorId: agent(),
      body: 'Why?',
      upvotes: 0,
      state: 'open',
      createdAt: new Date().toISOString(),
    });
  /** The statements the first replica sends while `work` runs (the outbox-less service's own). */
  const statementsOf = async (work: () => Promise<unknown>) =>
    (await service.statementsDuring(work)).statements;
  const deliveries = async () =>
    (await service.query<{ n: string }>('SELECT count(*) AS n FROM webhooks.deliveries'))[0]!.n;
  /** Until `probe` holds (a notice takes milliseconds; this allows seconds). */
  const eventually = (what: string, probe: () => Promise<boolean>) =>
    waitFor(what, async () => ((await probe()) ? true : undefined), 10_000);

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      ServiceHarness.start(webhooksService, {
        WEBHOOK_SIGNING_KEY: WebhookSigner.generate().secret,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        // Woken by new deliveries only, so that its passes are not counted as the fan-out's.
        WEBHOOK_POLL_INTERVAL_MS: '60000',
      }),
      WebhookReceiver.start(),
    ]);
    replica = await service.startReplica();
    // The host of the event (a projection the audience needs later), on both replicas' database.
    await service.deliver(
      domainEvent('townhall.event.scheduled', eventId, anEventView({ id: eventId, hostId: host })),
    );
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('passes over a domain event no subscription takes without a statement; a projection is one upsert', async () => {
    expect(await statementsOf(() => service.deliver(question()))).toEqual([]);
    const ticket = anIssuedTicketView(eventId, agent());
    const projected = await statementsOf(() =>
      service.deliver(domainEvent('townhall.ticket.issued', eventId, ticket)),
    );
    expect(projected).toHaveLength(1);
    expect(projected[0]).toMatch(/^INSERT INTO webhooks\.tickets /);
    expect(
      await service.query('SELECT holder_id, live FROM webhooks.tickets WHERE ticket_id = $1', [ticket.id]),
    ).toEqual([{ holder_id: ticket.holderId, live: true }]);
    expect(await deliveries()).toBe('0');
  });

  it('counts a subscription at once where it was made, on another replica once it commits, and forgets a deleted one', async () => {
    const made = await service.send(
      Webhooks.create,
      { url: receiver.url('/host'), types: ['townhall.question.*'] },
      host,
    );
    // Where it was made: the very next event.
    await service.deliver(question());
    expect(await deliveries()).toBe('1');
    // Another replica hears of it by NOTIFY at the commit.
    await eventually('the other replica to record a delivery', async () => {
      await replica.deliver(question());
      return (await deliveries()) !== '1';
    });
    await receiver.waitFor(2, '/host');

    await service.send(Webhooks.delete, { webhookId: made.id }, host);
    await eventually(
      'the deleted subscription to be forgotten',
      async () => (await statementsOf(() => service.deliver(question()))).length === 0,
    );
  });

  it('takes the database path for every event while its listener is lost, and passes over again once it is back', async () => {
    const listeners = () =>
      service.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
        [`listen:${SUBSCRIPTIONS_CHANNEL}`],
      );
    expect(await listeners()).toHaveLength(2);
    await service.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = $1`,
      [`listen:${SUBSCRIPTIONS_CHANNEL}`],
    );
    // A subscription made while nobody listens is not missed: the set is unknown until read again.
    await eventually(
      'the lost listener to be noticed',
      async () => (await statementsOf(() => service.deliver(question()))).length > 0,
    );
    const made = await service.send(
      Webhooks.create,
      { url: receiver.url('/later'), types: ['townhall.question.submitted'] },
      host,
    );
    await eventually('the other replica to record a delivery', async () => {
      const before = await deliveries();
      await replica.deliver(question());
      return (await deliveries()) !== before;
    });
    await eventually('both listeners back', async () => (await listeners()).length === 2);
    await service.send(Webhooks.delete, { webhookId: made.id }, host);
    await eventually(
      'the first replica to pass over again',
      async () => (await statementsOf(() => service.deliver(question()))).length === 0,
    );
  });
});

// How many subscriptions one agent holds (WEBHOOKS_PER_AGENT_LIMIT), a setting of the webhooks
// service: set here to 3; webhooks.service-spec.ts holds the default of 20.
import { generateAgentKey } from '@townhall/auth';
import { Webhooks } from '@townhall/contracts';
import { WebhookReceiver } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { webhooks as webhooksService, WebhookSigner } from '../src/service.js';

describe('webhooks service: subscriptions per agent, a setting', () => {
  let service: ServiceHarness;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      ServiceHarness.start(webhooksService, {
        WEBHOOK_SIGNING_KEY: WebhookSigner.generate().secret,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOKS_PER_AGENT_LIMIT: '3',
      }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([service?.stop(), receiver?.stop()]);
  });

  const create = (caller: string, path: string) =>
    service.send(Webhooks.create, { url: receiver.url(path), types: ['townhall.ledger.*'] }, caller);

  it('holds an agent to WEBHOOKS_PER_AGENT_LIMIT subscriptions, however many are made at once', async () => {
    const agent = generateAgentKey().agentId;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) => create(agent, `/${index}`)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    const refusal = await refusalOf(create(agent, '/over'));
    expect([refusal.code, refusal.status, refusal.message]).toEqual([
      'webhook.limit_reached',
      409,
      'An agent may hold 3 webhook subscriptions: delete one first',
    ]);
    const held = (await service.send(Webhooks.list, {}, agent)).items;
    expect(held).toHaveLength(3);
    await service.send(Webhooks.delete, { webhookId: held[0]!.id }, agent);
    await create(agent, '/again');
    expect((await refusalOf(create(agent, '/over-again'))).code).toBe('webhook.limit_reached');
    const counted = await service.query<{ held: number }>(
      'SELECT held FROM webhooks.agent_subscriptions WHERE agent_id = $1',
      [agent],
    );
    expect(counted).toEqual([{ held: 3 }]);
  });
});

import { agentKeyThumbprint, generateAgentKey } from '@townhall/auth';
import { createLogger } from '@townhall/platform';
import { PrivateRedis, waitFor } from '@townhall/testing';
import { createClient, type RedisClientType } from 'redis';
import { connectRedis } from '../src/auth/redis.js';
import { MemorySeenKeys, RedisSeenKeys, type SeenKeys } from '../src/auth/seen-keys.js';

/** The agents seen signing, by key thumbprint: shared by replicas, and bounded, on a Redis of its own. */
describe('seen keys', () => {
  let redis: PrivateRedis;
  let admin: RedisClientType;
  const clients: RedisClientType[] = [];
  const logger = createLogger('seen-keys-test', 'silent');

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    admin = createClient({ url: redis.url });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await admin?.close();
    await redis?.stop();
  });

  async function replica(max: number): Promise<RedisSeenKeys> {
    const connected = connectRedis(redis.url, logger);
    clients.push(connected);
    await waitFor('redis ready', async () => (connected.isReady ? true : undefined));
    return new RedisSeenKeys(connected, 'seen-test', logger, max);
  }

  /** `seen` writes in the background: the agent is there once it can be read. */
  async function recorded(keys: SeenKeys, agentId: string): Promise<void> {
    await waitFor('recorded', async () =>
      (await keys.agentOf(agentKeyThumbprint(agentId))) === agentId ? true : undefined,
    );
  }

  it('resolves on one replica a thumbprint another one saw', async () => {
    const [a, b] = [await replica(100), await replica(100)];
    const agent = generateAgentKey();
    expect(await b.agentOf(agentKeyThumbprint(agent.agentId))).toBeUndefined();
    a.seen(agent.agentId);
    await recorded(b, agent.agentId);
  });

  it('holds at most max agents, dropping the longest unseen: 500 strangers leave 50', async () => {
    await admin.flushAll();
    const keys = await replica(50);
    const agents = Array.from({ length: 500 }, () => generateAgentKey().agentId);
    for (const agentId of agents) {
      keys.seen(agentId);
      // One at a time, so that recency is the order seen.
      await recorded(keys, agentId);
    }
    const [hash, recency] = await Promise.all([
      admin.hLen('townhall:seen-test:{seen-keys}:agents'),
      admin.zCard('townhall:seen-test:{seen-keys}:recency'),
    ]);
    expect([hash, recency]).toEqual([50, 50]);
    expect(await keys.agentOf(agentKeyThumbprint(agents[0]!))).toBeUndefined();
    expect(await keys.agentOf(agentKeyThumbprint(agents[499]!))).toBe(agents[499]);
  });

  it('in memory: the same answers and the same bound', async () => {
    const keys = new MemorySeenKeys(3);
    const agents = Array.from({ length: 5 }, () => generateAgentKey().agentId);
    for (const agentId of agents) keys.seen(agentId);
    expect(await keys.agentOf(agentKeyThumbprint(agents[4]!))).toBe(agents[4]);
    expect(await keys.agentOf(agentKeyThumbprint(agents[0]!))).toBeUndefined();
  });
});

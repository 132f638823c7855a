import { ConfigError, createLogger } from '@townhall/platform';
import { PrivateRedis, waitFor } from '@townhall/testing';
import { createClient, type RedisClientType } from 'redis';
import { evictionPolicyRefusal } from '../src/auth/redis-eviction-policy.js';
import { connectRedis } from '../src/auth/redis.js';
import { GatewayConfigSchema } from '../src/config.js';
import { openNonces } from '../src/gateway-host.js';

/** The gateway's check of its Redis's maxmemory-policy, on a Redis of its own (CONFIG SET, ACL). */
describe("the gateway's Redis keeps every nonce: its maxmemory-policy must be noeviction", () => {
  let redis: PrivateRedis;
  let admin: RedisClientType;
  const logger = createLogger('eviction-policy-test', 'silent');
  const config = GatewayConfigSchema.parse({});

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    admin = createClient({ url: redis.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.close();
    await redis?.stop();
  });

  async function client(url = redis.url): Promise<RedisClientType> {
    const connected = connectRedis(url, logger);
    await waitFor('redis ready', async () => (connected.isReady ? true : undefined));
    return connected;
  }

  it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-ttl'])(
    'refuses %s, naming maxmemory-policy and why',
    async (policy) => {
      await admin.configSet('maxmemory-policy', policy);
      const connected = await client();
      try {
        const refusal = await evictionPolicyRefusal(connected, undefined);
        expect(refusal).toContain(
          `REDIS_URL: the Redis's maxmemory-policy is ${policy}; it must be noeviction`,
        );
        if (policy.startsWith('volatile-')) expect(refusal).toContain('every nonce has one');
        // The operator's word does not override what Redis says of itself.
        expect(await evictionPolicyRefusal(connected, 'noeviction')).toBe(refusal);
      } finally {
        await connected.close();
      }
    },
  );

  it('accepts noeviction', async () => {
    await admin.configSet('maxmemory-policy', 'noeviction');
    const connected = await client();
    try {
      expect(await evictionPolicyRefusal(connected, undefined)).toBeUndefined();
    } finally {
      await connected.close();
    }
  });

  it('where CONFIG is not allowed, needs REDIS_MAXMEMORY_POLICY=noeviction, the operator saying so', async () => {
    await admin.configSet('maxmemory-policy', 'noeviction');
    await admin.sendCommand(['ACL', 'SETUSER', 'noconfig', 'on', '>secret', '~*', '&*', '+@all', '-config']);
    const connected = await client(redis.url.replace('redis://', 'redis://noconfig:secret@'));
    try {
      expect(await evictionPolicyRefusal(connected, undefined)).toMatch(
        /^REDIS_MAXMEMORY_POLICY: this Redis refuses CONFIG GET maxmemory-policy \(NOPERM.*set REDIS_MAXMEMORY_POLICY=noeviction to say so$/,
      );
      expect(await evictionPolicyRefusal(connected, 'noeviction')).toBeUndefined();
    } finally {
      await connected.close();
    }
  });

  it('openNonces refuses the start (a ConfigError naming the setting) on an allkeys-lru Redis, and opens on noeviction', async () => {
    await admin.configSet('maxmemory-policy', 'allkeys-lru');
    const refused = openNonces(redis.url, config, logger);
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/maxmemory-policy is allkeys-lru; it must be noeviction/);

    await admin.configSet('maxmemory-policy', 'noeviction');
    const nonces = await openNonces(redis.url, config, logger);
    try {
      expect(await nonces.store.claim('agent', 'nonce-1')).toMatchObject({ claimed: true });
      await expect(nonces.readiness['redis']!()).resolves.toBeUndefined();
    } finally {
      await nonces.store.close();
    }
  });
});

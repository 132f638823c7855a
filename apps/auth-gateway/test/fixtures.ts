// What the gateway's tests on the real Redis share: two clients, as two replicas of the gateway
// hold, under an environment of their own, so that a spec's keys are its own and are deleted
// once it is done.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@townhall/platform';
import { REDIS_URL, waitFor } from '@townhall/testing';
import type { RedisClientType } from 'redis';
import { connectRedis } from '../src/auth/redis.js';

export class ReplicasOnRedis {
  /** The replicas' TOWNHALL_ENV: every key they write is under `townhall:<environment>:`. */
  readonly environment = `test-${randomUUID()}`;
  private clients: RedisClientType[] = [];

  /** Two clients of the real Redis (logging as `name`), once both are ready. */
  async connect(name: string): Promise<RedisClientType[]> {
    const logger = createLogger(name, 'silent');
    this.clients = [connectRedis(REDIS_URL, logger), connectRedis(REDIS_URL, logger)];
    // The client fails fast while connecting (no offline queue): wait until both are ready.
    await waitFor('redis clients ready', async () =>
      this.clients.every((c) => c.isReady) ? true : undefined,
    );
    return this.clients;
  }

  /** Deletes the environment's keys and closes the clients. */
  async close(): Promise<void> {
    const keys = await this.clients[0]!.keys(`townhall:${this.environment}:*`);
    if (keys.length > 0) await this.clients[0]!.del(keys);
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

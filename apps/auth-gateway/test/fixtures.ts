// What the gateway's tests on the real Redis share: two clients, as two replicas of the gateway
// hold, under an environment of their own, so that a spec's keys are its own and are deleted
// once it is done; on a redis-server of the spec's own where it flushes the server's scripts.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@townhall/platform';
import { PrivateRedis, REDIS_URL, waitFor } from '@townhall/testing';
import type { RedisClientType } from 'redis';
import { connectRedis } from '../src/auth/redis.js';

export class ReplicasOnRedis {
  /** The replicas' TOWNHALL_ENV: every key they write is under `townhall:<environment>:`. */
  readonly environment = `test-${randomUUID()}`;
  private clients: RedisClientType[] = [];
  private server: PrivateRedis | undefined;

  /**
   * `ownServer`: on a redis-server of the spec's own rather than the machine's. Scripts are the
   * server's, not an environment's: a spec that sends SCRIPT FLUSH (a restarted Redis) would flush
   * them under every other spec and app that runs meanwhile (a claim between its reload and its
   * EVALSHA got NOSCRIPT).
   */
  constructor(private readonly options: { ownServer?: boolean } = {}) {}

  /** The spec's own redis-server (`ownServer`), to stop and restart it. */
  get ownServer(): PrivateRedis {
    if (!this.server) throw new Error('not on a redis-server of its own (ownServer), or not connected');
    return this.server;
  }

  /** Two clients of the real Redis (logging as `name`), once both are ready. */
  async connect(name: string): Promise<RedisClientType[]> {
    const logger = createLogger(name, 'silent');
    if (this.options.ownServer) this.server = await PrivateRedis.start();
    const url = this.server?.url ?? REDIS_URL;
    this.clients = [connectRedis(url, logger), connectRedis(url, logger)];
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
    await this.server?.stop();
  }
}

/** Every command method a client is asked to run, counted: how many round trips a call makes. */
export function counting(client: RedisClientType): { client: RedisClientType; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: proxy, calls };
}

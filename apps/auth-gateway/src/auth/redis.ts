import type { Logger } from '@townhall/platform';
import { createClient, type RedisClientType } from 'redis';

/**
 * The gateway's Redis client (nonces). It fails fast while Redis is away: a queued claim
 * would hold the request open; a rejected one is a clean 503 (fail closed), and the client
 * keeps reconnecting in the background.
 */
export function connectRedis(url: string, logger: Logger): RedisClientType {
  const redis: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: 1_000 },
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
    },
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) logger.error({ err: error }, 'redis connection error');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
  });
  redis.connect().catch((error: unknown) => logger.error({ err: error }, 'redis is not reachable yet'));
  return redis;
}

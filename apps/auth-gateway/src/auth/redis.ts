import { createHash } from 'node:crypto';
import type { Logger } from '@townhall/platform';
import { createClient, type RedisClientType } from 'redis';

/** How long any Redis command may take before the request that needs it fails (503, or the insurance). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/**
 * `command`, or a rejection once it has taken REDIS_COMMAND_TIMEOUT_MS: a Redis that hangs fails
 * a request as fast as one that is down. One timer per command, cleared when it answers. The
 * client's own per-command timeout (`commandOptions.timeout`, 5 s unless set) is turned off: it
 * creates an `AbortSignal.timeout` per command that cannot be cleared and fires (a DOMException)
 * whether or not the command answered, about 3% of the gateway's CPU in a profile of the bench.
 */
export function withinCommandTimeout<T>(command: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`)),
      REDIS_COMMAND_TIMEOUT_MS,
    );
  });
  return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A Lua script the gateway runs on its Redis: by EVALSHA, so that a call sends the script's
 * digest and not its text, which Redis would otherwise hash again on every call. A server that
 * does not hold it (never loaded, restarted, SCRIPT FLUSH) answers NOSCRIPT: it is loaded, and the
 * call made again. The digest is the script's, not the server's, so one instance serves every
 * client and replica. Every command goes through withinCommandTimeout.
 */
export class RedisScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClientType, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await withinCommandTimeout(redis.evalSha(this.sha, { keys, arguments: args }));
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    }
    await withinCommandTimeout(redis.scriptLoad(this.source));
    return withinCommandTimeout(redis.evalSha(this.sha, { keys, arguments: args }));
  }
}

/**
 * The gateway's Redis client (nonces and rate limits). It fails fast while Redis is away: a
 * queued claim would hold the request open; a rejected one is a clean 503 (fail closed), and the
 * client keeps reconnecting in the background. Every command goes through withinCommandTimeout.
 */
export function connectRedis(url: string, logger: Logger): RedisClientType {
  const redis: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    // Off (node-redis 6 defaults to 5 s): withinCommandTimeout times every command instead.
    commandOptions: { timeout: 0 },
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

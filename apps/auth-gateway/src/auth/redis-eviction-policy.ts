import { ConfigError, type Logger } from '@townhall/platform';
import type { RedisClientType } from 'redis';
import { withinCommandTimeout } from './redis.js';

/**
 * The one `maxmemory-policy` the gateway's Redis may have. Under `allkeys-*` Redis drops any key
 * to make room, under `volatile-*` any key with a TTL: every nonce has one, so either way a nonce
 * could vanish before its signature's window closes, and its captured request would be accepted
 * again. Under `noeviction` a full Redis refuses writes instead: signed requests get 503 (nonces
 * fail closed), nothing is replayed.
 */
export const REQUIRED_EVICTION_POLICY = 'noeviction';

/** What Redis answers when CONFIG is renamed, disabled or not granted to this user (managed services). */
const CONFIG_REFUSED = /unknown command|NOPERM|no permissions|disabled/i;

/**
 * Why this Redis must not hold nonces, or undefined when it may: its `maxmemory-policy` by
 * `CONFIG GET`, or, where CONFIG is refused, the operator's word (`REDIS_MAXMEMORY_POLICY`). Throws
 * what is not an answer about the policy (Redis unreachable, a timeout): the caller asks again.
 */
export async function evictionPolicyRefusal(
  redis: RedisClientType,
  declared: string | undefined,
): Promise<string | undefined> {
  let policy: string | undefined;
  try {
    const reply = await withinCommandTimeout(redis.configGet('maxmemory-policy'));
    policy = reply['maxmemory-policy'];
  } catch (error) {
    if (!(error instanceof Error) || !CONFIG_REFUSED.test(error.message)) throw error;
    if (declared === REQUIRED_EVICTION_POLICY) return undefined;
    return `REDIS_MAXMEMORY_POLICY: this Redis refuses CONFIG GET maxmemory-policy (${error.message.split('\n')[0]}); make sure it runs with maxmemory-policy ${REQUIRED_EVICTION_POLICY} (a managed Redis: its parameter group) and set REDIS_MAXMEMORY_POLICY=${REQUIRED_EVICTION_POLICY} to say so`;
  }
  if (policy === REQUIRED_EVICTION_POLICY) return undefined;
  return `REDIS_URL: the Redis's maxmemory-policy is ${policy ?? 'unknown'}; it must be ${REQUIRED_EVICTION_POLICY} (CONFIG SET maxmemory-policy ${REQUIRED_EVICTION_POLICY}, and in redis.conf): ${
    policy?.startsWith('volatile-')
      ? 'volatile-* evicts keys with a TTL, and every nonce has one'
      : 'any other policy evicts keys'
  }, and an evicted nonce lets its captured request be replayed`;
}

/**
 * The gateway's check of its Redis's eviction policy: once at start (`atStart`, a ConfigError that
 * ends the start when the policy is wrong), and again each time the client connects (a Redis
 * replaced or reconfigured meanwhile). While the last check refused it, `refusal` says why: nonce
 * claims fail closed (503) and /readyz fails, naming the setting.
 */
export class EvictionPolicyCheck {
  refusal: string | undefined;

  constructor(
    private readonly redis: RedisClientType,
    private readonly declared: string | undefined,
    private readonly logger: Logger,
  ) {
    redis.on('ready', () => void this.check().catch(() => undefined));
  }

  /**
   * Waits up to `waitMs` for Redis, then checks it. A Redis that is not there yet is no reason to
   * refuse the start (requests fail closed until it is, as when it goes away later); its policy is
   * checked when it comes.
   */
  async atStart(waitMs = 2_000): Promise<void> {
    if (!this.redis.isReady) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (!this.redis.isReady) return;
    await this.check().catch(() => undefined);
    if (this.refusal) throw new ConfigError(`Invalid configuration:\n  ${this.refusal}`);
  }

  private async check(): Promise<void> {
    const refusal = await evictionPolicyRefusal(this.redis, this.declared);
    if (refusal && refusal !== this.refusal)
      this.logger.error(
        { refusal },
        'redis eviction policy refused: signed requests fail until it is noeviction',
      );
    this.refusal = refusal;
  }
}

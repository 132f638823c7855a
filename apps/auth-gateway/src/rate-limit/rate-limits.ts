import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import type { Counted, WindowCount } from '../auth/nonce-store.js';
import { withinCommandTimeout } from '../auth/redis.js';
import type { GatewayConfig } from '../config.js';

/** What a request spends: an agent's signed writes, or reads (per client IP, or per agent when signed). */
export type RateLimitKind = 'write' | 'read';

export type RateLimitConfig = Pick<
  GatewayConfig,
  'TOWNHALL_ENV' | 'RATE_LIMIT_WRITES_PER_SECOND' | 'RATE_LIMIT_WRITE_BURST' | 'RATE_LIMIT_READS_PER_SECOND'
>;

/** What createGateway needs to limit requests (GatewayDependencies.rateLimits). */
export interface RateLimitOptions {
  config: RateLimitConfig;
  /**
   * Counters shared by every replica. Without it this process counts alone, which is right only
   * for a single process (standalone mode, tests).
   */
  redis?: RedisClientType;
  /** Called for every request the limits answer 429, e.g. to count them in metrics. */
  onLimited?: (kind: RateLimitKind) => void;
}

/** One request's standing against its quota: what the RateLimit-* headers say. */
export interface RateLimitDecision {
  kind: RateLimitKind;
  allowed: boolean;
  /** The quota of one window (RateLimit-Limit). */
  limit: number;
  /** What is left of it (RateLimit-Remaining). */
  remaining: number;
  /** Seconds until the window resets (RateLimit-Reset, and Retry-After on a 429); at least 1. */
  resetSeconds: number;
  /** RateLimit-Policy, e.g. `20;w=1;burst=40`. */
  policy: string;
}

/**
 * How often the write reserve (burst minus rate) fills up again. An agent may go past its rate
 * by the reserve in one second, once per this many seconds; over a long run that is
 * rate + reserve / 10 per second (22/s with the defaults), close to a token bucket of the
 * same rate and size, which rate-limiter-flexible does not offer with atomic Redis counters.
 */
export const WRITE_RESERVE_SECONDS = 10;

/** A quota as windows: the second's own, then (writes with a burst) the reserve. */
interface Quota {
  windows: Array<{ name: string; points: number; windowMs: number }>;
  limit: number;
  policy: string;
}

/**
 * The gateway's rate limits: fixed one-second windows that start at a key's first request,
 * counted atomically in Redis so that every replica spends the same budget.
 * - A signed request's windows are counted by the nonce store in the same script as its nonce
 *   claim (`windowsOf`, then `decide`): one round trip, and a replay spends nothing. When Redis
 *   cannot answer, signed requests fail closed anyway.
 * - An unsigned request is counted per client IP by rate-limiter-flexible (`consume`): when Redis
 *   cannot answer (down, or slower than the client's 1 s command timeout), each counter falls back
 *   to its insurance, the same limit in this process's memory, so public reads go on being served
 *   and limited per replica.
 */
export class RateLimits {
  private readonly quotas: Partial<Record<RateLimitKind, Quota>> = {};
  /** Unsigned reads per client address, with their insurance (undefined when reads are not limited). */
  private readonly addresses: RateLimiterMemory | RateLimiterRedis | undefined;

  /** `namespace` keeps deployments that share a Redis apart, e.g. `townhall:production:ratelimit:<origin>`. */
  constructor(
    config: RateLimitConfig,
    private readonly namespace: string,
    redis?: RedisClientType,
  ) {
    const writes = config.RATE_LIMIT_WRITES_PER_SECOND;
    if (writes > 0) {
      const burst = Math.max(config.RATE_LIMIT_WRITE_BURST, writes);
      const own = { name: 'write', points: writes, windowMs: 1_000 };
      this.quotas.write =
        burst > writes
          ? {
              // The reserve is spent only once the second's own quota is gone.
              windows: [
                own,
                { name: 'write-reserve', points: burst - writes, windowMs: WRITE_RESERVE_SECONDS * 1_000 },
              ],
              limit: writes,
              policy: `${writes};w=1;burst=${burst}`,
            }
          : { windows: [own], limit: writes, policy: `${writes};w=1` };
    }
    const reads = config.RATE_LIMIT_READS_PER_SECOND;
    if (reads > 0) {
      this.quotas.read = {
        windows: [{ name: 'read', points: reads, windowMs: 1_000 }],
        limit: reads,
        policy: `${reads};w=1`,
      };
      const keyPrefix = `${namespace}:read`;
      const memory = new RateLimiterMemory({ keyPrefix, points: reads, duration: 1 });
      this.addresses = redis
        ? new RateLimiterRedis({
            // What the library calls of node-redis for consume(), each command within the timeout.
            storeClient: {
              get isReady() {
                return redis.isReady;
              },
              eval: (script: string, options: { keys: string[]; arguments: string[] }) =>
                withinCommandTimeout(redis.eval(script, options)),
            },
            useRedisPackage: true, // node-redis (v4+ API): eval(script, { keys, arguments })
            rejectIfRedisNotReady: true, // while reconnecting, go straight to the insurance
            insuranceLimiter: memory,
            // Once a key is over its limit, this replica answers it from memory until the window
            // ends: a flood from one client costs Redis nothing more.
            inMemoryBlockOnConsumed: reads + 1,
            keyPrefix,
            points: reads,
            duration: 1,
          })
        : memory;
    }
  }

  /** Whether requests of this kind are limited at all (0 in the configuration turns a kind off). */
  limits(kind: RateLimitKind): boolean {
    return this.quotas[kind] !== undefined;
  }

  /**
   * Counts one unsigned request of a client address (`ip:<address>`) against the read quota;
   * undefined when reads are not limited. A request over the limit is counted too.
   */
  async consumeRead(address: string): Promise<RateLimitDecision | undefined> {
    const quota = this.quotas.read;
    if (!quota || !this.addresses) return undefined;
    let result: RateLimiterRes;
    let allowed = true;
    try {
      result = await this.addresses.consume(address);
    } catch (rejection) {
      // A RateLimiterRes is "over the limit"; anything else is a store error with no insurance
      // left to take it, which cannot happen with the memory insurance: let it surface.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      result = rejection;
      allowed = false;
    }
    return {
      kind: 'read',
      allowed,
      limit: quota.limit,
      remaining: allowed ? result.remainingPoints : 0,
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      policy: quota.policy,
    };
  }

  /**
   * The windows an agent's signed request of this kind spends, for the nonce store to count with
   * its nonce claim (NonceStore.claim); none when the kind is not limited. The agent is the key's
   * hash tag, as in the nonce's key, so both live in one Redis Cluster slot.
   */
  windowsOf(kind: RateLimitKind, agentId: string): WindowCount[] {
    return (this.quotas[kind]?.windows ?? []).map(({ name, points, windowMs }) => ({
      key: `${this.namespace}:${name}:agent:{${agentId}}`,
      points,
      windowMs,
    }));
  }

  /** The decision for what the nonce claim counted of `windowsOf(kind, ...)`. */
  decide(kind: RateLimitKind, counts: readonly Counted[]): RateLimitDecision | undefined {
    const quota = this.quotas[kind];
    const [own] = counts;
    if (!quota || !own) return undefined;
    const last = counts.length - 1;
    const allowed = counts[last]!.consumed <= quota.windows[last]!.points;
    return {
      kind,
      allowed,
      limit: quota.limit,
      remaining: Math.max(0, quota.limit - own.consumed),
      resetSeconds: Math.max(1, Math.ceil(own.msLeft / 1000)),
      policy: quota.policy,
    };
  }
}

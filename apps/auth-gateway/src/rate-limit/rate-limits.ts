import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
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

interface Counter {
  consume(key: string): Promise<RateLimiterRes>;
}

interface Quota {
  counter: Counter;
  limit: number;
  policy: string;
}

/**
 * The gateway's rate limits, as rate-limiter-flexible counters: fixed one-second windows that
 * start at a key's first request, counted atomically in Redis (one EVAL each) so that every
 * replica spends the same budget. When Redis cannot answer (down, or slower than the client's
 * 1 s command timeout), each counter falls back to its insurance: the same limit in this
 * process's memory, so requests go on being served and limited per replica.
 */
export class RateLimits {
  private readonly quotas: Partial<Record<RateLimitKind, Quota>> = {};

  /** `namespace` keeps deployments that share a Redis apart, e.g. `townhall:production:ratelimit:<origin>`. */
  constructor(config: RateLimitConfig, namespace: string, redis?: RedisClientType) {
    const counter = (
      name: string,
      points: number,
      duration: number,
    ): RateLimiterMemory | RateLimiterRedis => {
      const keyPrefix = `${namespace}:${name}`;
      const memory = new RateLimiterMemory({ keyPrefix, points, duration });
      if (!redis) return memory;
      return new RateLimiterRedis({
        storeClient: redis,
        useRedisPackage: true, // node-redis (v4+ API): eval(script, { keys, arguments })
        rejectIfRedisNotReady: true, // while reconnecting, go straight to the insurance
        insuranceLimiter: memory,
        // Once a key is over its limit, this replica answers it from memory until the window
        // ends: a flood from one client costs Redis nothing more.
        inMemoryBlockOnConsumed: points + 1,
        keyPrefix,
        points,
        duration,
      });
    };

    const writes = config.RATE_LIMIT_WRITES_PER_SECOND;
    if (writes > 0) {
      const burst = Math.max(config.RATE_LIMIT_WRITE_BURST, writes);
      const sustained = counter('write', writes, 1);
      this.quotas.write =
        burst > writes
          ? {
              // The reserve is spent only once the second's own quota is gone.
              counter: new BurstyRateLimiter(
                sustained,
                counter('write-reserve', burst - writes, WRITE_RESERVE_SECONDS),
              ),
              limit: writes,
              policy: `${writes};w=1;burst=${burst}`,
            }
          : { counter: sustained, limit: writes, policy: `${writes};w=1` };
    }
    const reads = config.RATE_LIMIT_READS_PER_SECOND;
    if (reads > 0)
      this.quotas.read = { counter: counter('read', reads, 1), limit: reads, policy: `${reads};w=1` };
  }

  /** Whether requests of this kind are limited at all (0 in the configuration turns a kind off). */
  limits(kind: RateLimitKind): boolean {
    return this.quotas[kind] !== undefined;
  }

  /**
   * Counts one request of `subject` (an agentId, or `ip:<address>`) against its quota;
   * undefined when that kind is not limited. A request over the limit is counted too.
   */
  async consume(kind: RateLimitKind, subject: string): Promise<RateLimitDecision | undefined> {
    const quota = this.quotas[kind];
    if (!quota) return undefined;
    let result: RateLimiterRes;
    let allowed = true;
    try {
      result = await quota.counter.consume(subject);
    } catch (rejection) {
      // A RateLimiterRes is "over the limit"; anything else is a store error with no insurance
      // left to take it, which cannot happen with the memory insurance: let it surface.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      result = rejection;
      allowed = false;
    }
    return {
      kind,
      allowed,
      limit: quota.limit,
      // BurstyRateLimiter reports the second's own quota: the reserve is never announced, so a
      // client that keeps Remaining above 0 never meets a 429.
      remaining: allowed ? Math.min(result.remainingPoints, quota.limit) : 0,
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      policy: quota.policy,
    };
  }
}

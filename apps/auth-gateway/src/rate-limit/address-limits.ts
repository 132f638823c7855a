import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import { withinCommandTimeout } from '../auth/redis.js';
import type { GatewayConfig } from '../config.js';

export type AddressLimitConfig = Pick<
  GatewayConfig,
  | 'TOWNHALL_ENV'
  | 'RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND'
  | 'AUTH_FAILURES_PER_ADDRESS'
  | 'AUTH_FAILURE_WINDOW_SECONDS'
  | 'AUTH_FAILURE_BLOCK_SECONDS'
>;

/** What createGateway needs to guard signed routes per client address (GatewayDependencies.addressLimits). */
export interface AddressLimitOptions {
  config: AddressLimitConfig;
  /** Counters shared by every replica; without it this process counts alone (standalone, tests). */
  redis?: RedisClientType;
}

/** Why an address is refused before its signature is looked at, and for how long. */
export type AddressRefusal =
  | { reason: 'rate'; limit: number; retryAfterSeconds: number }
  | { reason: 'blocked'; failures: number; windowSeconds: number; retryAfterSeconds: number };

/**
 * What a client address may make the gateway spend on signed requests before anything is
 * verified (docs/product.md "Limits"): a signature costs us an Ed25519 verify and a body of up
 * to BODY_LIMIT_BYTES, and anyone can send one with a key made a second ago, so per-agent
 * limits, which count only verified requests, cannot bound it.
 * - Every signed request of an address (per /64 for IPv6, client-address.ts) spends one point
 *   of its bucket, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND, before its headers are checked.
 * - Every signed request refused as not authentic (any auth.* problem) counts against the
 *   address; past AUTH_FAILURES_PER_ADDRESS within AUTH_FAILURE_WINDOW_SECONDS the address is
 *   refused every signed request for AUTH_FAILURE_BLOCK_SECONDS, before any verify.
 * Both are counted in Redis when the gateway has one (every replica spends one budget), with
 * this process's memory as insurance when Redis cannot answer, as for unsigned reads.
 */
export class AddressLimits {
  private readonly bucket: RateLimiterMemory | RateLimiterRedis | undefined;
  private readonly failures: RateLimiterMemory | RateLimiterRedis | undefined;
  /**
   * Addresses known to be blocked, until when (ms): a blocked address's flood is answered from
   * memory, costing Redis nothing. Bounded: an attacker with many addresses evicts only entries
   * that Redis still holds.
   */
  private readonly blockedHere = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly config: AddressLimitConfig,
    namespace: string,
    redis?: RedisClientType,
  ) {
    const storeClient = redis && {
      // What the library calls of node-redis (eval to count; a MULTI of GET and PTTL to read a
      // standing, of SET and PTTL to block), each command within the client's timeout.
      get isReady() {
        return redis.isReady;
      },
      eval: (script: string, options: { keys: string[]; arguments: string[] }) =>
        withinCommandTimeout(redis.eval(script, options)),
      multi: () => {
        const multi = redis.multi();
        const exec = multi.exec.bind(multi);
        return Object.assign(multi, {
          exec: (...args: Parameters<typeof exec>) => withinCommandTimeout(exec(...args)),
        });
      },
      del: (key: string) => withinCommandTimeout(redis.del(key)),
    };
    const perSecond = config.RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND;
    if (perSecond > 0) {
      const keyPrefix = `${namespace}:signed-address`;
      const memory = new RateLimiterMemory({ keyPrefix, points: perSecond, duration: 1 });
      this.bucket = storeClient
        ? new RateLimiterRedis({
            storeClient,
            useRedisPackage: true,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
            // Over its limit, an address is answered from this replica's memory until the second ends.
            inMemoryBlockOnConsumed: perSecond + 1,
            keyPrefix,
            points: perSecond,
            duration: 1,
          })
        : memory;
    }
    const threshold = config.AUTH_FAILURES_PER_ADDRESS;
    if (threshold > 0) {
      const keyPrefix = `${namespace}:auth-failures`;
      const options = {
        keyPrefix,
        points: threshold,
        duration: config.AUTH_FAILURE_WINDOW_SECONDS,
        blockDuration: config.AUTH_FAILURE_BLOCK_SECONDS,
      };
      const memory = new RateLimiterMemory(options);
      this.failures = storeClient
        ? new RateLimiterRedis({
            ...options,
            storeClient,
            useRedisPackage: true,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
    }
  }

  /** Whether any of the two is on (0 in the configuration turns each off). */
  get enabled(): boolean {
    return this.bucket !== undefined || this.failures !== undefined;
  }

  /**
   * Spends one point of the address's bucket and looks whether it is blocked: the refusal, or
   * undefined when its signed request may be looked at. `address` is clientAddressKey's.
   */
  async admit(address: string): Promise<AddressRefusal | undefined> {
    const blockedUntil = this.blockedHere.get(address);
    if (blockedUntil !== undefined) {
      if (blockedUntil > Date.now()) return this.blocked(blockedUntil - Date.now());
      this.blockedHere.delete(address);
    }
    const [standing, spent] = await Promise.all([this.failures?.get(address), this.consume(address)]);
    if (standing && standing.consumedPoints > this.config.AUTH_FAILURES_PER_ADDRESS) {
      // Past the threshold: blocked for the key's time left, once the block is written. A key
      // that still has no more than the window's time left was crossed a moment ago, on another
      // replica that has not written the block yet: blocked for the whole block from now.
      const leftMs =
        standing.msBeforeNext > this.config.AUTH_FAILURE_WINDOW_SECONDS * 1000
          ? standing.msBeforeNext
          : this.config.AUTH_FAILURE_BLOCK_SECONDS * 1000;
      this.blockedHere.set(address, Date.now() + leftMs);
      return this.blocked(leftMs);
    }
    if (spent && !spent.allowed)
      return {
        reason: 'rate',
        limit: this.config.RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND,
        retryAfterSeconds: secondsOf(spent.result.msBeforeNext),
      };
    return undefined;
  }

  /** Counts a signed request of the address refused as not authentic. */
  async failed(address: string): Promise<void> {
    if (!this.failures) return;
    try {
      await this.failures.consume(address);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // Over the threshold: blocked for AUTH_FAILURE_BLOCK_SECONDS from the failure that crossed
      // it, a moment ago at most. Not the rejection's msBeforeNext: a failure counted while the
      // crossing one was still setting the block in Redis sees the window's time left instead.
      this.blockedHere.set(address, Date.now() + this.config.AUTH_FAILURE_BLOCK_SECONDS * 1000);
    }
  }

  private blocked(ms: number): AddressRefusal {
    return {
      reason: 'blocked',
      failures: this.config.AUTH_FAILURES_PER_ADDRESS,
      windowSeconds: this.config.AUTH_FAILURE_WINDOW_SECONDS,
      retryAfterSeconds: secondsOf(ms),
    };
  }

  private async consume(address: string): Promise<{ allowed: boolean; result: RateLimiterRes } | undefined> {
    if (!this.bucket) return undefined;
    try {
      return { allowed: true, result: await this.bucket.consume(address) };
    } catch (rejection) {
      // Anything but a RateLimiterRes is a store error the memory insurance cannot have let through.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, result: rejection };
    }
  }
}

function secondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

import { LRUCache } from 'lru-cache';
import type { RedisClientType } from 'redis';
import { RedisScript } from '../auth/redis.js';
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

/** The bucket's window: RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND is per second. */
const BUCKET_WINDOW_MS = 1_000;

/** A counter's value and the time left before it expires (ms; 0 for a counter that is not there). */
export interface Count {
  count: number;
  msLeft: number;
}

/** An address's standing once a signed request of it spent its point: its bucket and its failures. */
export interface AddressStanding {
  /** This second's signed requests of the address, this one included (0 with the bucket off). */
  spent: Count;
  /** Its failures in the window, or since the block started once past the threshold. */
  failures: Count;
}

/** What a failure left of its address's count: past the threshold, `msLeft` is the block's. */
export type FailureCount = Count;

/**
 * Where the two counters of an address live: fixed windows that start at a key's first count.
 * - `admit` spends one point of the address's bucket (a window of BUCKET_WINDOW_MS, if the bucket
 *   is on) and reads its failures, in one step.
 * - `fail` counts a failure (a window of `windowMs`); the failure that takes the count past
 *   `threshold` makes the counter last `blockMs` from then, so that the count past the threshold
 *   and the block's time left are one record, written at once.
 * The Redis script and its memory twin are one protocol (test/address-limits.int-spec.ts).
 */
export interface AddressCounters {
  admit(address: string): Promise<AddressStanding>;
  fail(address: string): Promise<FailureCount>;
}

interface CounterRules {
  /** Whether admit spends a point of the bucket. */
  bucket: boolean;
  threshold: number;
  windowMs: number;
  blockMs: number;
}

/**
 * KEYS[1] the address's bucket, KEYS[2] its failures; ARGV[1] the bucket's window in ms, or 0 when
 * the bucket is off. Answers {spent, its ms left, failures, their ms left}.
 */
const ADMIT = new RedisScript(`
local spent, spentLeft = 0, 0
local window = tonumber(ARGV[1])
if window > 0 then
  spent = redis.call('INCR', KEYS[1])
  spentLeft = redis.call('PTTL', KEYS[1])
  if spentLeft < 0 then
    redis.call('PEXPIRE', KEYS[1], window)
    spentLeft = window
  end
end
local failures = tonumber(redis.call('GET', KEYS[2]) or '0')
local failuresLeft = 0
if failures > 0 then failuresLeft = math.max(0, redis.call('PTTL', KEYS[2])) end
return {spent, spentLeft, failures, failuresLeft}`);

/**
 * KEYS[1] the address's failures; ARGV[1] the threshold, ARGV[2] the window in ms, ARGV[3] the
 * block in ms. Answers {failures, ms left}.
 */
const FAIL = new RedisScript(`
local failures = redis.call('INCR', KEYS[1])
if failures == tonumber(ARGV[1]) + 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {failures, tonumber(ARGV[3])}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
return {failures, left}`);

/**
 * The counters in Redis, shared by every replica: `<namespace>:signed-address:{<address>}` and
 * `<namespace>:auth-failures:{<address>}`. The address is a hash tag, so both keys of ADMIT are in
 * one slot of a Redis Cluster. Throws when Redis cannot answer (AddressLimits then counts in memory).
 */
export class RedisAddressCounters implements AddressCounters {
  constructor(
    private readonly redis: RedisClientType,
    private readonly namespace: string,
    private readonly rules: CounterRules,
  ) {}

  async admit(address: string): Promise<AddressStanding> {
    if (!this.redis.isReady) throw new Error('Redis is not ready');
    const [spent, spentLeft, failures, failuresLeft] = (await ADMIT.run(
      this.redis,
      [this.bucketKey(address), this.failuresKey(address)],
      [this.rules.bucket ? String(BUCKET_WINDOW_MS) : '0'],
    )) as [number, number, number, number];
    return {
      spent: { count: spent, msLeft: spentLeft },
      failures: { count: failures, msLeft: failuresLeft },
    };
  }

  async fail(address: string): Promise<FailureCount> {
    if (!this.redis.isReady) throw new Error('Redis is not ready');
    const { threshold, windowMs, blockMs } = this.rules;
    const [count, msLeft] = (await FAIL.run(
      this.redis,
      [this.failuresKey(address)],
      [String(threshold), String(windowMs), String(blockMs)],
    )) as [number, number];
    return { count, msLeft };
  }

  private bucketKey(address: string): string {
    return `${this.namespace}:signed-address:{${address}}`;
  }

  private failuresKey(address: string): string {
    return `${this.namespace}:auth-failures:{${address}}`;
  }
}

/**
 * The same counters in this process's memory: standalone mode's, and every replica's insurance
 * while Redis cannot answer. Bounded by time: a counter is dropped once expired (swept at most once
 * a second), so it holds the addresses of the last window (and the blocks) only.
 */
export class MemoryAddressCounters implements AddressCounters {
  private readonly buckets = new Map<string, { count: number; endsAt: number }>();
  private readonly failures = new Map<string, { count: number; endsAt: number }>();
  private lastSweep = 0;

  constructor(
    private readonly rules: CounterRules,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(address: string): Promise<AddressStanding> {
    const now = this.sweep();
    let spent: Count = { count: 0, msLeft: 0 };
    if (this.rules.bucket) {
      const bucket = this.live(this.buckets, address, now, BUCKET_WINDOW_MS);
      bucket.count += 1;
      spent = { count: bucket.count, msLeft: bucket.endsAt - now };
    }
    const failures = this.failures.get(address);
    return {
      spent,
      failures:
        failures && failures.endsAt > now
          ? { count: failures.count, msLeft: failures.endsAt - now }
          : { count: 0, msLeft: 0 },
    };
  }

  async fail(address: string): Promise<FailureCount> {
    const now = this.sweep();
    const failures = this.live(this.failures, address, now, this.rules.windowMs);
    failures.count += 1;
    if (failures.count === this.rules.threshold + 1) failures.endsAt = now + this.rules.blockMs;
    return { count: failures.count, msLeft: failures.endsAt - now };
  }

  private live(
    counters: Map<string, { count: number; endsAt: number }>,
    address: string,
    now: number,
    windowMs: number,
  ): { count: number; endsAt: number } {
    let counter = counters.get(address);
    if (!counter || counter.endsAt <= now) {
      counter = { count: 0, endsAt: now + windowMs };
      counters.set(address, counter);
    }
    return counter;
  }

  private sweep(): number {
    const now = this.now();
    if (now - this.lastSweep < 1_000) return now;
    this.lastSweep = now;
    for (const counters of [this.buckets, this.failures])
      for (const [address, counter] of counters) if (counter.endsAt <= now) counters.delete(address);
    return now;
  }
}

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
 * Both are counted in Redis when the gateway has one (every replica spends one budget: the
 * bucket's point and the failures' standing are one script, one round trip before the verify),
 * with this process's memory as insurance when Redis cannot answer, as for unsigned reads.
 */
export class AddressLimits {
  private readonly counters: AddressCounters | undefined;
  private readonly insurance: MemoryAddressCounters | undefined;
  /**
   * Addresses known to be blocked, until when (ms): a blocked address's flood is answered from
   * memory, costing Redis nothing. Bounded: an attacker with many addresses evicts only entries
   * that Redis still holds.
   */
  private readonly blockedHere = new LRUCache<string, number>({ max: 10_000 });
  /** Addresses over their bucket, until their second ends (ms): answered from memory meanwhile. */
  private readonly overBucketHere = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly config: AddressLimitConfig,
    namespace: string,
    redis?: RedisClientType,
  ) {
    const bucket = config.RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND > 0;
    const threshold = config.AUTH_FAILURES_PER_ADDRESS;
    if (!bucket && threshold === 0) return;
    const rules: CounterRules = {
      bucket,
      // Off (0): no count ever passes it.
      threshold: threshold > 0 ? threshold : Number.MAX_SAFE_INTEGER,
      windowMs: config.AUTH_FAILURE_WINDOW_SECONDS * 1000,
      blockMs: config.AUTH_FAILURE_BLOCK_SECONDS * 1000,
    };
    this.insurance = new MemoryAddressCounters(rules);
    this.counters = redis ? new RedisAddressCounters(redis, namespace, rules) : this.insurance;
  }

  /** Whether any of the two is on (0 in the configuration turns each off). */
  get enabled(): boolean {
    return this.counters !== undefined;
  }

  /**
   * Spends one point of the address's bucket and looks whether it is blocked: the refusal, or
   * undefined when its signed request may be looked at. `address` is clientAddressKey's.
   */
  async admit(address: string): Promise<AddressRefusal | undefined> {
    if (!this.counters) return undefined;
    const now = Date.now();
    const blockedUntil = this.blockedHere.get(address);
    if (blockedUntil !== undefined) {
      if (blockedUntil > now) return this.blocked(blockedUntil - now);
      this.blockedHere.delete(address);
    }
    const overUntil = this.overBucketHere.get(address);
    if (overUntil !== undefined) {
      if (overUntil > now) return this.overBucket();
      this.overBucketHere.delete(address);
    }
    const { spent, failures } = await this.counted((counters) => counters.admit(address));
    const threshold = this.config.AUTH_FAILURES_PER_ADDRESS;
    if (threshold > 0 && failures.count > threshold) {
      // The failure that crossed the threshold set the counter's time left to the block's.
      this.blockedHere.set(address, Date.now() + failures.msLeft);
      return this.blocked(failures.msLeft);
    }
    const perSecond = this.config.RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND;
    if (perSecond > 0 && spent.count > perSecond) {
      this.overBucketHere.set(address, Date.now() + spent.msLeft);
      return this.overBucket();
    }
    return undefined;
  }

  /** Counts a signed request of the address refused as not authentic. */
  async failed(address: string): Promise<void> {
    const threshold = this.config.AUTH_FAILURES_PER_ADDRESS;
    if (!this.counters || threshold === 0) return;
    const failures = await this.counted((counters) => counters.fail(address));
    if (failures.count > threshold) this.blockedHere.set(address, Date.now() + failures.msLeft);
  }

  /** `count` in Redis, or in this process's memory when Redis cannot answer. */
  private async counted<T>(count: (counters: AddressCounters) => Promise<T>): Promise<T> {
    const counters = this.counters!;
    if (counters === this.insurance) return count(counters);
    try {
      return await count(counters);
    } catch {
      // Down, not ready, or slower than the command timeout: this replica counts alone meanwhile.
      return count(this.insurance!);
    }
  }

  private overBucket(): AddressRefusal {
    // The bucket's window is a second: whatever is left of it, retry after 1 s.
    return {
      reason: 'rate',
      limit: this.config.RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND,
      retryAfterSeconds: 1,
    };
  }

  private blocked(ms: number): AddressRefusal {
    return {
      reason: 'blocked',
      failures: this.config.AUTH_FAILURES_PER_ADDRESS,
      windowSeconds: this.config.AUTH_FAILURE_WINDOW_SECONDS,
      retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
    };
  }
}

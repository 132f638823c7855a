import { DomainError } from '@townhall/contracts';
import type { RedisClientType } from 'redis';
import { RedisScript, withinCommandTimeout } from './redis.js';

/**
 * A counter that a signed request spends in the same step as its nonce claim (the agent's
 * rate-limit windows, rate-limit/rate-limits.ts): a fixed window of `windowMs` that starts at
 * the key's first count. The counters of one claim form a chain: the first is always counted,
 * each next one only when the one before it went over its `points` (a burst reserve is spent only
 * once the second's own quota is gone).
 */
export interface WindowCount {
  key: string;
  points: number;
  windowMs: number;
}

/** What a counter holds after the claim counted it: this window's count, and the time left in it. */
export interface Counted {
  consumed: number;
  msLeft: number;
}

/** A claim's outcome; `counts` has one entry per counter of the chain that was counted. */
export type Claim = { claimed: false } | { claimed: true; counts: Counted[] };

/**
 * Where a verified request's nonce is claimed, exactly once, and its rate-limit counters spent in
 * the same step: a replayed nonce spends nothing (a captured request cannot drain its victim's
 * budget), and a request costs one round trip to the store. A claim that cannot be answered
 * throws: the caller fails closed (503), it never lets a request through.
 */
export interface NonceStore {
  /** Claims (agentId, nonce) if it was unused, then counts `counts` (in chain order). */
  claim(agentId: string, nonce: string, counts?: readonly WindowCount[]): Promise<Claim>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A nonce must stay claimed for as long as its signature could still pass the freshness
 * check: a timestamp up to 30 s ahead stays acceptable until 300 s after it, so 330 s.
 * Ten minutes leaves room for clock drift between replicas.
 */
export const NONCE_TTL_SECONDS = 600;

/**
 * The claim and the counts as one script, so that Redis runs them atomically and in that order.
 * KEYS[1] is the nonce, KEYS[2..] the counters; ARGV[1] the nonce's TTL in seconds, then a
 * (points, window ms) pair per counter. Answers {0} for a replayed nonce, else
 * {1, consumed, ms left, ...} for each counter counted.
 */
const CLAIM_AND_COUNT = new RedisScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return {0} end
local reply = {1}
for i = 2, #KEYS do
  local points = tonumber(ARGV[2 * i - 2])
  local window = tonumber(ARGV[2 * i - 1])
  local consumed = redis.call('INCR', KEYS[i])
  local left = redis.call('PTTL', KEYS[i])
  if left < 0 then
    redis.call('PEXPIRE', KEYS[i], window)
    left = window
  end
  reply[#reply + 1] = consumed
  reply[#reply + 1] = left
  if consumed <= points then break end
end
return reply`);

/**
 * Nonces and counters in Redis, shared by every replica. Keys carry the agent as a hash tag
 * (`{agentId}`), so one claim's keys live in one slot of a Redis Cluster too.
 */
export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: RedisClientType,
    private readonly environment: string,
    /** Why this Redis must not hold nonces now (its eviction policy), if it must not: claims then fail. */
    private readonly refusal: () => string | undefined = () => undefined,
  ) {}

  async claim(agentId: string, nonce: string, counts: readonly WindowCount[] = []): Promise<Claim> {
    const refused = this.refusal();
    if (refused) throw new Error(refused);
    const keys = [`townhall:${this.environment}:nonce:{${agentId}}:${nonce}`, ...counts.map((c) => c.key)];
    const args = [
      String(NONCE_TTL_SECONDS),
      ...counts.flatMap((c) => [String(c.points), String(c.windowMs)]),
    ];
    const reply = (await CLAIM_AND_COUNT.run(this.redis, keys, args)) as number[];
    if (reply[0] !== 1) return { claimed: false };
    const counted: Counted[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2)
      counted.push({ consumed: reply[i]!, msLeft: reply[i + 1]! });
    return { claimed: true, counts: counted };
  }

  async ping(): Promise<void> {
    await withinCommandTimeout(this.redis.ping());
  }

  async close(): Promise<void> {
    if (this.redis.isOpen) await this.redis.close();
  }
}

/** Nonces one process keeps at most (MEMORY_NONCES_MAX): each about 200 bytes, 100 MB at most. */
export const MEMORY_NONCES_MAX = 500_000;

/**
 * Single-process store for standalone mode and tests; never for several replicas. Bounded by time
 * (a nonce is kept NONCE_TTL_SECONDS, then swept) and by size: with `maxNonces` unexpired nonces
 * held, a new claim is refused (503 `service.overloaded`, nothing counted) until some expire. A
 * nonce is never dropped early, which would let its captured request be replayed.
 */
export class MemoryNonceStore implements NonceStore {
  private readonly expiries = new Map<string, number>();
  private readonly windows = new Map<string, { consumed: number; endsAt: number }>();
  private lastSweep = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxNonces: number = MEMORY_NONCES_MAX,
  ) {}

  async claim(agentId: string, nonce: string, counts: readonly WindowCount[] = []): Promise<Claim> {
    const now = this.now();
    this.sweep(now);
    const key = `${agentId}:${nonce}`;
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry > now) return { claimed: false };
    if (expiry === undefined && this.expiries.size >= this.maxNonces) {
      // Full: sweep at once (at most once a second), and refuse if nothing has expired.
      if (now - this.lastSweep >= 1_000) this.sweep(now, true);
      if (this.expiries.size >= this.maxNonces)
        throw new DomainError(
          'service.overloaded',
          `This server holds as many unexpired nonces as it may (${this.maxNonces}, MEMORY_NONCES_MAX); retry shortly`,
        );
    }
    this.expiries.set(key, now + NONCE_TTL_SECONDS * 1000);
    const counted: Counted[] = [];
    for (const count of counts) {
      let window = this.windows.get(count.key);
      if (!window || window.endsAt <= now) {
        window = { consumed: 0, endsAt: now + count.windowMs };
        this.windows.set(count.key, window);
      }
      window.consumed += 1;
      counted.push({ consumed: window.consumed, msLeft: window.endsAt - now });
      if (window.consumed <= count.points) break;
    }
    return { claimed: true, counts: counted };
  }

  /** How many nonces it holds, expired ones not yet swept included (tests). */
  get size(): number {
    return this.expiries.size;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.expiries.clear();
    this.windows.clear();
  }

  private sweep(now: number, force = false): void {
    if (!force && now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [key, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(key);
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}

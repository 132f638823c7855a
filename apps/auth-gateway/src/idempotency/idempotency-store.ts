import { createHash, randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import { RedisScript } from '../auth/redis.js';

/** How long a finished request's answer is replayed for its key (docs/protocol/idempotency.md: 24 hours). */
export const IDEMPOTENCY_KEEP_MS = 24 * 3_600_000;

/**
 * How long a key stays claimed by a request that never finishes (its process died): the longest
 * a handler waits for its service, plus margin for the hooks and Redis. A live gateway always
 * settles the key itself (the answer kept, or the key released); this only ends a dead one's hold.
 */
export function inFlightMsOf(serviceTimeoutMs: number): number {
  return serviceTimeoutMs + 10_000;
}

/** The answer kept for a key, replayed as it was sent (idempotent-requests.ts). */
export interface StoredResponse {
  status: number;
  /** Lower-case names, as Fastify keeps them. */
  headers: Record<string, string | string[]>;
  /** The body bytes, base64. */
  body: string;
}

/** A key claimed by the one request that runs it; `marker` is what the store holds meanwhile. */
export interface HeldKey {
  readonly agentId: string;
  readonly key: string;
  readonly marker: string;
}

/** What the store says of a key when a request arrives with it. */
export type Begun =
  | { outcome: 'claimed'; held: HeldKey }
  | { outcome: 'in_flight' }
  | { outcome: 'mismatch' }
  | { outcome: 'replay'; response: StoredResponse }
  /** The agent holds `keysPerAgent` keys already; the soonest of them is free in `retryAfterMs`. */
  | { outcome: 'too_many_keys'; retryAfterMs: number }
  /** Memory only: the process holds as many keys (or bytes) as it may, none of them expired. */
  | { outcome: 'store_full' };

/**
 * Keys one agent may hold at once (IDEMPOTENCY_KEYS_PER_AGENT): each a request in flight or an
 * answer kept 24 h. Only 2xx answers are kept (idempotency-key.ts isKeptStatus), so this is about
 * 1,000 successful writes with a key a day; a key a client could fill faster costs nothing to make.
 */
export const IDEMPOTENCY_KEYS_PER_AGENT = 1_000;

/**
 * Where Idempotency-Keys are claimed, atomically, and their answers kept: Redis, shared by every
 * replica, or one process's memory (standalone mode). A claim that cannot be answered throws: the
 * caller fails closed (503), it never runs a request it may have run already. Neither store ever
 * forgets a key before its time to make room: a full store refuses new keys instead, so a retry
 * never runs twice because of what others sent.
 */
export interface IdempotencyStore {
  /**
   * The key, scoped to its agent: claimed for this request (an in-flight marker that expires after
   * `inFlightMs`) if nobody holds it and the agent holds fewer than its cap, else what it holds: a
   * request still running, one with another fingerprint, the answer to replay, or the cap.
   */
  begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun>;
  /**
   * Keeps `response` for `keepMs` in place of the marker. False, keeping nothing, when the marker
   * is no longer there (it expired and another request claimed the key): that request's answer
   * wins; or (memory) when the answer does not fit: the key is then given back.
   */
  complete(held: HeldKey, response: StoredResponse, keepMs: number): Promise<boolean>;
  /** Gives the key back (nothing kept), if this request still holds it. */
  release(held: HeldKey): Promise<void>;
}

type Entry =
  | { state: 'in_flight'; fingerprint: string; token: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

function markerOf(fingerprint: string): string {
  return JSON.stringify({ state: 'in_flight', fingerprint, token: randomUUID() } satisfies Entry);
}

function doneOf(marker: string, response: StoredResponse): string {
  const { fingerprint } = JSON.parse(marker) as Entry;
  return JSON.stringify({ state: 'done', fingerprint, response } satisfies Entry);
}

/** What an existing entry means for a request with `fingerprint`. */
function outcomeOf(stored: string, fingerprint: string): Exclude<Begun, { outcome: 'claimed' }> {
  const entry = JSON.parse(stored) as Entry;
  if (entry.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  return entry.state === 'done' ? { outcome: 'replay', response: entry.response } : { outcome: 'in_flight' };
}

/**
 * Redis's clock in milliseconds, and the agent's index (KEYS[2], a sorted set of key digests by
 * expiry) rid of what has expired. Scripts replicate their effects (Redis 7; asked for before):
 * TIME is allowed, and replicas apply what it decided.
 */
const NOW_AND_PRUNE = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local function expireIndex()
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', KEYS[2], math.max(1, tonumber(last[2]) - now)) end
end`;

/**
 * Answers what the key (KEYS[1]) holds; else, if the agent's index (KEYS[2]) holds fewer than
 * ARGV[4] keys, claims it with the marker (ARGV[1], PX ARGV[2]) and indexes its digest (ARGV[3])
 * until then; else {'too_many_keys', ms until the soonest of them expires}. One script: the cap
 * holds for concurrent claims on every replica.
 */
const BEGIN = new RedisScript(`${NOW_AND_PRUNE}
local current = redis.call('GET', KEYS[1])
if current then return current end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  local soonest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'too_many_keys', tonumber(soonest[2]) - now}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
expireIndex()
return false`);

/**
 * Only while the key still holds this request's marker (ARGV[1]): keeps the answer (ARGV[2], PX
 * ARGV[3]) in its place, its digest (ARGV[4]) indexed until then, or, with an empty answer, gives
 * the key back and unindexes it. 1 if it did.
 */
const SETTLE = new RedisScript(`${NOW_AND_PRUNE}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[4])
end
expireIndex()
return 1`);

/**
 * Keys in the gateway's Redis (the nonces' connection), shared by every replica:
 * `townhall:<env>:idempotency:<audience>:{<agentId>}:<SHA-256 of the key>`, and the agent's index
 * `townhall:<env>:idempotency:<audience>:{<agentId>}` (each held key's digest, scored by when it
 * expires: what the cap counts). The key is hashed so that the Redis key has a fixed length and no
 * bytes the client chose; the agent is a hash tag, as for nonces, so both keys of one script are
 * in one slot of a Redis Cluster; the audience keeps deployments that share a Redis apart, as for
 * rate limits.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly redis: RedisClientType,
    private readonly environment: string,
    private readonly audience: string,
    private readonly keysPerAgent: number = IDEMPOTENCY_KEYS_PER_AGENT,
  ) {}

  async begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun> {
    const marker = markerOf(fingerprint);
    const digest = digestOf(key);
    const current = await BEGIN.run(this.redis, this.keysOf(agentId, digest), [
      marker,
      String(inFlightMs),
      digest,
      String(this.keysPerAgent),
    ]);
    if (current === null) return { outcome: 'claimed', held: { agentId, key, marker } };
    if (Array.isArray(current)) return { outcome: 'too_many_keys', retryAfterMs: Number(current[1]) };
    return outcomeOf(String(current), fingerprint);
  }

  async complete(held: HeldKey, response: StoredResponse, keepMs: number): Promise<boolean> {
    const digest = digestOf(held.key);
    const settled = await SETTLE.run(this.redis, this.keysOf(held.agentId, digest), [
      held.marker,
      doneOf(held.marker, response),
      String(keepMs),
      digest,
    ]);
    return settled === 1;
  }

  async release(held: HeldKey): Promise<void> {
    const digest = digestOf(held.key);
    await SETTLE.run(this.redis, this.keysOf(held.agentId, digest), [held.marker, '', '0', digest]);
  }

  /** [the key's record, the agent's index]. */
  private keysOf(agentId: string, digest: string): [string, string] {
    const index = `townhall:${this.environment}:idempotency:${this.audience}:{${agentId}}`;
    return [`${index}:${digest}`, index];
  }
}

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Bounds of the memory store: standalone mode's one process. */
export interface MemoryIdempotencyLimits {
  /** Most keys held at once, every agent's together. */
  maxKeys: number;
  /** Most bytes of kept answers (and markers) at once. */
  maxBytes: number;
  /** Most keys one agent holds at once (IDEMPOTENCY_KEYS_PER_AGENT). */
  keysPerAgent: number;
}

export const MEMORY_IDEMPOTENCY_LIMITS: MemoryIdempotencyLimits = {
  maxKeys: 50_000,
  maxBytes: 64 * 1024 * 1024,
  keysPerAgent: IDEMPOTENCY_KEYS_PER_AGENT,
};

interface MemoryEntry {
  agentId: string;
  value: string;
  expiresAt: number;
  bytes: number;
}

/** How often a claim looks through the whole store for expired keys, at most. */
const SWEEP_EVERY_MS = 1_000;

/**
 * One process's keys (standalone mode, and in-process tests); never for several replicas. Bounded
 * by time (each key expires) and by size: past `keysPerAgent` for one agent, or `maxKeys` or
 * `maxBytes` in all, a new key is refused (too_many_keys, store_full) until one expires. No key is
 * forgotten before its time, so a retry within its 24 hours never runs twice. An answer that does
 * not fit is not kept (its key given back), as one over MAX_KEPT_BODY_BYTES.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, MemoryEntry>();
  /** Each agent's ids in `entries`. */
  private readonly byAgent = new Map<string, Set<string>>();
  private readonly limits: MemoryIdempotencyLimits;
  private bytes = 0;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    limits: Partial<MemoryIdempotencyLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...MEMORY_IDEMPOTENCY_LIMITS, ...limits };
  }

  async begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun> {
    const now = this.now();
    const id = this.idOf(agentId, key);
    const current = this.live(id, now);
    if (current) return outcomeOf(current.value, fingerprint);
    const held = this.byAgent.get(agentId);
    if (held && held.size >= this.limits.keysPerAgent) {
      let soonest = Number.POSITIVE_INFINITY;
      for (const other of held) {
        const entry = this.entries.get(other)!;
        if (entry.expiresAt <= now) this.remove(other);
        else soonest = Math.min(soonest, entry.expiresAt);
      }
      if (held.size >= this.limits.keysPerAgent)
        return { outcome: 'too_many_keys', retryAfterMs: soonest - now };
    }
    const marker = markerOf(fingerprint);
    const bytes = this.sizeOf(id, marker);
    if (!this.fits(1, bytes, now)) return { outcome: 'store_full' };
    this.put(id, { agentId, value: marker, expiresAt: now + inFlightMs, bytes });
    return { outcome: 'claimed', held: { agentId, key, marker } };
  }

  async complete(held: HeldKey, response: StoredResponse, keepMs: number): Promise<boolean> {
    const now = this.now();
    const id = this.idOf(held.agentId, held.key);
    const current = this.live(id, now);
    if (current?.value !== held.marker) return false;
    const done = doneOf(held.marker, response);
    const bytes = this.sizeOf(id, done);
    if (!this.fits(0, bytes - current.bytes, now)) {
      this.remove(id);
      return false;
    }
    this.remove(id);
    this.put(id, { agentId: held.agentId, value: done, expiresAt: now + keepMs, bytes });
    return true;
  }

  async release(held: HeldKey): Promise<void> {
    const id = this.idOf(held.agentId, held.key);
    if (this.live(id, this.now())?.value === held.marker) this.remove(id);
  }

  /** How many keys it holds, expired ones not yet swept included (tests). */
  get size(): number {
    return this.entries.size;
  }

  private live(id: string, now: number): MemoryEntry | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.expiresAt <= now) {
      this.remove(id);
      return undefined;
    }
    return entry;
  }

  /** Whether `keys` more keys and `bytes` more bytes fit, once expired keys are swept if need be. */
  private fits(keys: number, bytes: number, now: number): boolean {
    const fits = () =>
      this.entries.size + keys <= this.limits.maxKeys && this.bytes + bytes <= this.limits.maxBytes;
    if (fits()) return true;
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.remove(id);
    }
    return fits();
  }

  private put(id: string, entry: MemoryEntry): void {
    this.entries.set(id, entry);
    this.bytes += entry.bytes;
    let ids = this.byAgent.get(entry.agentId);
    if (!ids) this.byAgent.set(entry.agentId, (ids = new Set()));
    ids.add(id);
  }

  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
    const ids = this.byAgent.get(entry.agentId);
    ids?.delete(id);
    if (ids?.size === 0) this.byAgent.delete(entry.agentId);
  }

  private sizeOf(id: string, value: string): number {
    return id.length + value.length;
  }

  private idOf(agentId: string, key: string): string {
    return `${agentId}\n${key}`;
  }
}

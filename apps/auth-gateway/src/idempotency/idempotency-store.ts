import { createHash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RedisClientType } from 'redis';
import { withinCommandTimeout } from '../auth/redis.js';

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
  | { outcome: 'replay'; response: StoredResponse };

/**
 * Where Idempotency-Keys are claimed, atomically, and their answers kept: Redis, shared by every
 * replica, or one process's memory (standalone mode). A claim that cannot be answered throws: the
 * caller fails closed (503), it never runs a request it may have run already.
 */
export interface IdempotencyStore {
  /**
   * The key, scoped to its agent: claimed for this request (an in-flight marker that expires after
   * `inFlightMs`) if nobody holds it, else what it holds: a request still running, one with another
   * fingerprint, or the answer to replay.
   */
  begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun>;
  /**
   * Keeps `response` for `keepMs` in place of the marker. False, keeping nothing, when the marker
   * is no longer there (it expired and another request claimed the key): that request's answer wins.
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

/** Claims the key with the marker (ARGV[1], PX ARGV[2]) if it is free; else answers what it holds. */
const BEGIN = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/**
 * Only while the key still holds this request's marker (ARGV[1]): keeps the answer (ARGV[2], PX
 * ARGV[3]) in its place, or, with an empty answer, gives the key back. 1 if it did.
 */
const SETTLE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`;

/**
 * Keys in the gateway's Redis (the nonces' connection), shared by every replica:
 * `townhall:<env>:idempotency:<audience>:{<agentId>}:<SHA-256 of the key>`. The key is hashed so
 * that the Redis key has a fixed length and no bytes the client chose; the agent is a hash tag,
 * as for nonces; the audience keeps deployments that share a Redis apart, as for rate limits.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly shas = new Map<string, string>();

  constructor(
    private readonly redis: RedisClientType,
    private readonly environment: string,
    private readonly audience: string,
  ) {}

  async begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun> {
    const marker = markerOf(fingerprint);
    const current = await this.run(BEGIN, [this.redisKey(agentId, key)], [marker, String(inFlightMs)]);
    if (current === null) return { outcome: 'claimed', held: { agentId, key, marker } };
    return outcomeOf(String(current), fingerprint);
  }

  async complete(held: HeldKey, response: StoredResponse, keepMs: number): Promise<boolean> {
    const done = doneOf(held.marker, response);
    const settled = await this.run(
      SETTLE,
      [this.redisKey(held.agentId, held.key)],
      [held.marker, done, String(keepMs)],
    );
    return settled === 1;
  }

  async release(held: HeldKey): Promise<void> {
    await this.run(SETTLE, [this.redisKey(held.agentId, held.key)], [held.marker, '', '0']);
  }

  private redisKey(agentId: string, key: string): string {
    const digest = createHash('sha256').update(key).digest('hex');
    return `townhall:${this.environment}:idempotency:${this.audience}:{${agentId}}:${digest}`;
  }

  /** EVALSHA, loading the script once per server (a restarted Redis has forgotten it: NOSCRIPT). */
  private async run(script: string, keys: string[], args: string[]): Promise<unknown> {
    const sha = this.shas.get(script);
    if (sha) {
      try {
        return await withinCommandTimeout(this.redis.evalSha(sha, { keys, arguments: args }));
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      }
    }
    const loaded = await withinCommandTimeout(this.redis.scriptLoad(script));
    this.shas.set(script, loaded);
    return withinCommandTimeout(this.redis.evalSha(loaded, { keys, arguments: args }));
  }
}

/** Bounds of the memory store: standalone mode's one process. */
export interface MemoryIdempotencyLimits {
  /** Most keys held at once. */
  maxKeys: number;
  /** Most bytes of kept answers (and markers) at once. */
  maxBytes: number;
}

export const MEMORY_IDEMPOTENCY_LIMITS: MemoryIdempotencyLimits = {
  maxKeys: 50_000,
  maxBytes: 64 * 1024 * 1024,
};

/**
 * One process's keys (standalone mode, and in-process tests); never for several replicas. Bounded:
 * past `maxKeys` or `maxBytes` the least recently used key is forgotten first, and a retry with a
 * forgotten key runs again. Expired keys go when next touched or pushed out; there is no timer.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries: LRUCache<string, string>;

  constructor(limits: MemoryIdempotencyLimits = MEMORY_IDEMPOTENCY_LIMITS, now: () => number = Date.now) {
    this.entries = new LRUCache<string, string>({
      max: limits.maxKeys,
      maxSize: limits.maxBytes,
      sizeCalculation: (value, key) => value.length + key.length,
      perf: { now },
      ttlResolution: 0,
    });
  }

  async begin(agentId: string, key: string, fingerprint: string, inFlightMs: number): Promise<Begun> {
    const id = this.idOf(agentId, key);
    const current = this.entries.get(id);
    if (current !== undefined) return outcomeOf(current, fingerprint);
    const marker = markerOf(fingerprint);
    this.entries.set(id, marker, { ttl: inFlightMs });
    return { outcome: 'claimed', held: { agentId, key, marker } };
  }

  async complete(held: HeldKey, response: StoredResponse, keepMs: number): Promise<boolean> {
    const id = this.idOf(held.agentId, held.key);
    if (this.entries.get(id) !== held.marker) return false;
    this.entries.set(id, doneOf(held.marker, response), { ttl: keepMs });
    // Larger than the whole store: lru-cache refuses it and drops the marker (the key is free).
    return this.entries.has(id);
  }

  async release(held: HeldKey): Promise<void> {
    const id = this.idOf(held.agentId, held.key);
    if (this.entries.get(id) === held.marker) this.entries.delete(id);
  }

  /** How many keys it holds (tests). */
  get size(): number {
    return this.entries.size;
  }

  private idOf(agentId: string, key: string): string {
    return `${agentId}\n${key}`;
  }
}

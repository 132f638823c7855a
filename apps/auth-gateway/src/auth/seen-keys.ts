import { agentKeyThumbprint } from '@townhall/auth/portable';
import type { Logger } from '@townhall/platform';
import { LRUCache } from 'lru-cache';
import type { RedisClientType } from 'redis';
import { RedisScript, withinCommandTimeout } from './redis.js';

/**
 * The agents this service has seen sign, by the RFC 7638 thumbprint of their key: what lets an
 * RFC 9421 signature name its key as Web Bot Auth does (`keyid` = thumbprint) and still be an
 * agentId (docs/protocol/signing.md "RFC 9421 signatures"). Bounded: it holds the
 * `max` agents seen most recently, so that a stranger minting keys can push out entries (those
 * agents then send their agentId as keyid once, or a Signature-Agent) but never grow the store.
 */
export interface SeenKeys {
  /** The agent whose key has this thumbprint, if it has been seen. */
  agentOf(thumbprint: string): Promise<string | undefined>;
  /** Records a verified agent. Cheap on the hot path: a replica writes an agent at most hourly. */
  seen(agentId: string): void;
}

/** Agents a replica has recorded within the hour: it does not write them again. */
const RECORDED = { max: 50_000, ttl: 3_600_000 } as const;

/** Seen agents kept at most (SEEN_KEYS_MAX's default): about 150 bytes each in Redis, 15 MB. */
export const SEEN_KEYS_MAX = 100_000;

/**
 * KEYS[1] the thumbprints' hash, KEYS[2] their recency (a sorted set); ARGV thumbprint, agentId,
 * now, max. Records the pair, then drops the oldest beyond max from both.
 */
const RECORD = new RedisScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
  redis.call('HDEL', KEYS[1], unpack(oldest))
end
return over`);

/** Shared by every replica, in the nonces' Redis; one hash tag, so one slot of a Redis Cluster. */
export class RedisSeenKeys implements SeenKeys {
  private readonly recorded = new LRUCache<string, true>(RECORDED);
  private readonly keys: [string, string];

  constructor(
    private readonly redis: RedisClientType,
    environment: string,
    private readonly logger: Logger,
    private readonly max = SEEN_KEYS_MAX,
  ) {
    this.keys = [`townhall:${environment}:{seen-keys}:agents`, `townhall:${environment}:{seen-keys}:recency`];
  }

  async agentOf(thumbprint: string): Promise<string | undefined> {
    return (await withinCommandTimeout(this.redis.hGet(this.keys[0], thumbprint))) ?? undefined;
  }

  seen(agentId: string): void {
    if (this.recorded.has(agentId)) return;
    this.recorded.set(agentId, true);
    const args = [agentKeyThumbprint(agentId), agentId, String(Date.now()), String(this.max)];
    RECORD.run(this.redis, this.keys, args).catch((error: unknown) => {
      // Not recorded: tried again on its next request.
      this.recorded.delete(agentId);
      this.logger.warn({ err: error }, 'could not record a seen key');
    });
  }
}

/** Standalone: this process's memory, with the same bound. */
export class MemorySeenKeys implements SeenKeys {
  private readonly agents: LRUCache<string, string>;
  private readonly recorded = new LRUCache<string, true>(RECORDED);

  constructor(max = SEEN_KEYS_MAX) {
    this.agents = new LRUCache<string, string>({ max });
  }

  async agentOf(thumbprint: string): Promise<string | undefined> {
    return this.agents.get(thumbprint);
  }

  seen(agentId: string): void {
    if (this.recorded.has(agentId)) return;
    this.recorded.set(agentId, true);
    this.agents.set(agentKeyThumbprint(agentId), agentId);
  }
}

import type { RedisClientType } from 'redis';

/**
 * Where a verified request's nonce is claimed, exactly once. A claim that cannot be
 * answered throws: the caller fails closed (503), it never lets a request through.
 */
export interface NonceStore {
  /** true if this (agentId, nonce) was unused and is now claimed; false if it was seen before. */
  claim(agentId: string, nonce: string): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A nonce must stay claimed for as long as its signature could still pass the freshness
 * check: a timestamp up to 30 s ahead stays acceptable until 300 s after it, so 330 s.
 * Ten minutes leaves room for clock drift between replicas.
 */
export const NONCE_TTL_SECONDS = 600;

export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: RedisClientType,
    private readonly environment: string,
  ) {}

  async claim(agentId: string, nonce: string): Promise<boolean> {
    const reply = await this.redis.set(`townhall:${this.environment}:nonce:${agentId}:${nonce}`, '1', {
      condition: 'NX',
      expiration: { type: 'EX', value: NONCE_TTL_SECONDS },
    });
    return reply === 'OK';
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    if (this.redis.isOpen) await this.redis.close();
  }
}

/** Single-process store for standalone mode and tests; never for several replicas. */
export class MemoryNonceStore implements NonceStore {
  private readonly expiries = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async claim(agentId: string, nonce: string): Promise<boolean> {
    const now = this.now();
    this.sweep(now);
    const key = `${agentId}:${nonce}`;
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    this.expiries.set(key, now + NONCE_TTL_SECONDS * 1000);
    return true;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.expiries.clear();
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [key, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(key);
  }
}

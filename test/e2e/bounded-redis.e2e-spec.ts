import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { agentKeyThumbprint, generateAgentKey, signRequest } from '@townhall/auth';
import { AgentClient, TownhallError } from '@townhall/sdk';
import {
  APPS,
  compileCacheEnv,
  entryPoint,
  PrivateRedis,
  problemOf,
  REPO_ROOT,
  StandaloneProcess,
  Topology,
  waitFor,
} from '@townhall/testing';
import { createClient, type RedisClientType } from 'redis';

/**
 * What a stranger can make the gateway's Redis hold (docs/operations.md "Redis"): refusals keep
 * nothing, an agent holds at most IDEMPOTENCY_KEYS_PER_AGENT answers, nonces expire, and a Redis
 * that could evict a nonce is refused at start. On a Redis of the test's own, so that its keys and
 * memory are this topology's alone.
 */
const KEYS_PER_AGENT = 100;

interface RedisState {
  usedMemory: number;
  keys: number;
}

describe("the gateway's Redis is bounded", () => {
  let redis: PrivateRedis;
  let admin: RedisClientType;
  let topology: Topology;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    admin = createClient({ url: redis.url });
    await admin.connect();
    topology = await Topology.start({
      redisUrl: redis.url,
      env: { IDEMPOTENCY_KEYS_PER_AGENT: String(KEYS_PER_AGENT) },
    });
  });
  afterAll(async () => {
    await topology?.stop();
    await admin?.close();
    await redis?.stop();
  });

  async function state(): Promise<RedisState> {
    const info = await admin.info('memory');
    return { usedMemory: Number(/^used_memory:(\d+)/m.exec(info)![1]), keys: await admin.dbSize() };
  }

  async function keysLike(pattern: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const batch of admin.scanIterator({ MATCH: pattern, COUNT: 1_000 })) keys.push(...batch);
    return keys;
  }

  /** Runs `count` calls of `task`, `concurrency` at a time. */
  async function inBatches<T>(
    count: number,
    concurrency: number,
    task: (i: number) => Promise<T>,
  ): Promise<T[]> {
    const results: T[] = [];
    for (let start = 0; start < count; start += concurrency)
      results.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(concurrency, count - start) }, (_, i) => task(start + i)),
        )),
      );
    return results;
  }

  it('keeps nothing for 10,000 idempotent 404s from one agent: Redis grows by their nonces only, which expire', async () => {
    const agent = topology.client();
    // Its first signed request records it among the seen keys (a field of one bounded hash,
    // auth/seen-keys.ts), once: before the count starts.
    await agent.ledger.balance();
    const thumbprint = agentKeyThumbprint(agent.agentId);
    await waitFor('the agent recorded among the seen keys', async () => {
      const [seen] = await keysLike('townhall:*:{seen-keys}:agents');
      return seen !== undefined && (await admin.hExists(seen, thumbprint)) ? true : undefined;
    });
    const before = await state();
    const refusals = await inBatches(10_000, 50, async () => {
      const problem = await problemOf(
        agent.request('DELETE', `/webhooks/${randomUUID()}`, { idempotencyKey: randomUUID() }),
      );
      return `${problem.status} ${problem.code}`;
    });
    expect(new Set(refusals)).toEqual(new Set(['404 webhook.not_found']));
    const after = await state();

    // No answer and no key is kept for a refusal.
    expect(await keysLike('townhall:*:idempotency:*')).toEqual([]);
    // What is left is one nonce per request, each gone after NONCE_TTL_SECONDS (600 s).
    const nonces = await keysLike(`townhall:*:nonce:{${agent.agentId}}:*`);
    expect(nonces).toHaveLength(10_000 + 1); // and its first request's
    for (const key of nonces.slice(0, 20)) {
      const ttl = await admin.pTTL(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(600_000);
    }
    expect(after.keys - before.keys).toBe(10_000);
    const bytesPerRequest = (after.usedMemory - before.usedMemory) / 10_000;
    process.stdout.write(
      `10,000 idempotent 404s: ${after.keys - before.keys} keys, ${bytesPerRequest.toFixed(0)} bytes each\n`,
    );
    // A nonce is about 150 bytes; a kept 404 answer was about 1 KB more.
    expect(bytesPerRequest).toBeLessThan(300);
  });

  it('keeps at most IDEMPOTENCY_KEYS_PER_AGENT answers of one agent: the next key is 429 idempotency.too_many_keys with Retry-After, and runs nothing', async () => {
    const agent = topology.client();
    const card = { handle: `bounded_${randomUUID().slice(0, 8)}`, displayName: 'Bounded' };
    const answers = await inBatches(KEYS_PER_AGENT + 50, 10, async () => {
      try {
        const response = await agent.request('PUT', '/directory/me', {
          body: card,
          idempotencyKey: randomUUID(),
        });
        return { status: response.status };
      } catch (error) {
        if (!(error instanceof TownhallError)) throw error;
        return { status: error.status, code: error.code, retryAfter: error.headers.get('retry-after') };
      }
    });
    // The first PUT creates the card (201), the others replace it (200).
    const kept = answers.filter((answer) => answer.status === 200 || answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 429);
    expect([kept.length, refused.length]).toEqual([KEYS_PER_AGENT, 50]);
    for (const refusal of refused) {
      expect(refusal).toMatchObject({ code: 'idempotency.too_many_keys' });
      expect(Number(refusal.retryAfter)).toBeGreaterThan(86_000);
    }
    // The answers and the agent's index of them; nothing more.
    const keys = await keysLike(`townhall:*:idempotency:*{${agent.agentId}}*`);
    expect(keys).toHaveLength(KEYS_PER_AGENT + 1);
    // Without a key, the agent's writes still run.
    await expect(agent.directory.putMe(card)).resolves.toMatchObject({ handle: card.handle });
  });

  it('holds about 6 MiB per 1,000 active agents (10 signed requests each in 10 minutes, 3 of them writes kept for replay)', async () => {
    const agents = Array.from({ length: 1_000 }, () => topology.client());
    const before = await state();
    await inBatches(agents.length, 25, async (i) => {
      const agent = agents[i]!;
      const key = () => ({ idempotencyKey: randomUUID() });
      await agent.request('PUT', '/directory/me', {
        body: { handle: `active_${i}_${randomUUID().slice(0, 6)}`, displayName: `Agent ${i}` },
        ...key(),
      });
      for (let n = 0; n < 2; n += 1)
        await agent.request('POST', '/events', { body: anEvent(`Meetup ${i}.${n}`), ...key() });
      for (let n = 0; n < 7; n += 1) await agent.request('GET', n % 2 ? '/me/tickets' : '/ledger/balance');
    });
    const after = await state();
    const perThousand = ((after.usedMemory - before.usedMemory) * 1_000) / agents.length;
    process.stdout.write(
      `1,000 active agents: ${after.keys - before.keys} keys, ${(perThousand / 1024 / 1024).toFixed(2)} MiB of used_memory\n`,
    );
    // 10 nonces (10 minutes), 3 kept answers and an index (24 hours) per agent.
    expect(after.keys - before.keys).toBe(agents.length * 14);
    expect(perThousand).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('a Redis that may evict nonces is refused at start, naming the setting', () => {
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.configSet('maxmemory-policy', 'allkeys-lru');
    await admin.close();
  });
  afterAll(() => redis?.stop());

  /**
   * Runs an app's entry point (`entryPoint`) with only `env` (and PATH, and Node's compile cache);
   * resolves with its exit code and stderr.
   */
  function runApp(app: string, env: Record<string, string>, args: string[] = []) {
    return new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [entryPoint(app), ...args], {
        cwd: REPO_ROOT,
        env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
  }

  const refusal = "REDIS_URL: the Redis's maxmemory-policy is allkeys-lru; it must be noeviction";

  it('the gateway: exit 78 before it reaches NATS', async () => {
    const { code, stderr } = await runApp(APPS.gateway, {
      NATS_URL: 'nats://127.0.0.1:1',
      REDIS_URL: redis.url,
    });
    expect(code).toBe(78);
    expect(stderr).toContain(`auth-gateway: Invalid configuration:\n  ${refusal}`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('standalone with REDIS_URL: exit 78', async () => {
    const { code, stderr } = await runApp('standalone', { REDIS_URL: redis.url }, [
      '--ephemeral',
      '--port',
      '0',
    ]);
    expect(code).toBe(78);
    expect(stderr).toContain(refusal);
  });
});

describe("standalone's memory is bounded the same way, and never drops a nonce to make room", () => {
  let standalone: StandaloneProcess;
  let audience: string;

  beforeAll(async () => {
    standalone = await StandaloneProcess.start({
      MEMORY_NONCES_MAX: '1000',
      IDEMPOTENCY_KEYS_PER_AGENT: '3',
      RATE_LIMIT_READS_PER_SECOND: '0',
      RATE_LIMIT_WRITES_PER_SECOND: '0',
      RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0',
    });
    // It signs for its PUBLIC_BASE_URL, http://localhost:<port>.
    audience = standalone.baseUrl.replace('127.0.0.1', 'localhost');
  });
  afterAll(() => standalone?.stop());

  it('keeps at most IDEMPOTENCY_KEYS_PER_AGENT answers of one agent (429), then refuses signed requests with 503 once it holds MEMORY_NONCES_MAX nonces; a captured request stays refused', async () => {
    const key = generateAgentKey();
    const agent = new AgentClient({ baseUrl: standalone.baseUrl, audience, key });
    const card = { handle: `mem_${randomUUID().slice(0, 8)}`, displayName: 'Bounded' };
    for (let i = 0; i < 3; i += 1)
      await agent.request('PUT', '/directory/me', { body: card, idempotencyKey: `key-${i}` });
    expect(
      await problemOf(agent.request('PUT', '/directory/me', { body: card, idempotencyKey: 'key-3' })),
    ).toMatchObject({ status: 429, code: 'idempotency.too_many_keys' });

    // A request signed once, sent now and again later.
    const signed = signRequest({ key, audience, method: 'GET', target: '/ledger/balance' });
    const send = () =>
      fetch(`${standalone.baseUrl}/ledger/balance`, {
        headers: { authorization: signed.authorization, 'x-nonce': signed.nonce },
      });
    expect((await send()).status).toBe(200);

    // 1,000 nonces held in all (the 5 above included): the next signed request is refused.
    const others = new AgentClient({ baseUrl: standalone.baseUrl, audience });
    for (let sent = 5; sent < 1_000; sent += 50)
      await Promise.all(Array.from({ length: Math.min(50, 1_000 - sent) }, () => others.ledger.balance()));
    expect(await problemOf(others.ledger.balance())).toMatchObject({
      status: 503,
      code: 'service.overloaded',
    });
    // The captured request is still a replay, not a new request.
    const replayed = await send();
    expect([replayed.status, ((await replayed.json()) as { code: string }).code]).toEqual([
      401,
      'auth.nonce_replayed',
    ]);
  });
});

function anEvent(title: string) {
  const startsAt = new Date(Date.now() + 48 * 3_600_000);
  return {
    title,
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
    timezone: 'UTC',
    capacity: 10,
  };
}

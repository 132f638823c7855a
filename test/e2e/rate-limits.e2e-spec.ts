import { setTimeout as sleep } from 'node:timers/promises';
import { generateAgentKey, signRequest, type AgentKey } from '@townhall/auth';
import { PrivateRedis, Topology, waitFor } from '@townhall/testing';

/**
 * Rate limits across two gateway replicas sharing one Redis (docs/product.md "Limits"), with limits
 * small enough to reach quickly: 5 writes per agent per second with bursts to 10, 20 public
 * reads per client IP per second. The gateways trust X-Forwarded-For from loopback, so each
 * test picks the client address its reads come from.
 */
const LIMITS = {
  RATE_LIMIT_WRITES_PER_SECOND: '5',
  RATE_LIMIT_WRITE_BURST: '10',
  RATE_LIMIT_READS_PER_SECOND: '20',
  TRUST_PROXY: 'loopback',
};

interface Answer {
  gateway: string;
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

describe('rate limits, shared by two gateways through Redis', () => {
  let redis: PrivateRedis;
  let topology: Topology;
  let gateways: [string, string];

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    topology = await Topology.start({ redisUrl: redis.url, env: LIMITS });
    const second = await topology.startGateway();
    gateways = [topology.baseUrl, second.url];
  });
  afterAll(async () => {
    await topology?.stop();
    await redis?.stop();
  });

  async function answer(gateway: string, response: Promise<Response>): Promise<Answer> {
    const received = await response;
    const text = await received.text();
    const body = /json/.test(received.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
    return { gateway, status: received.status, headers: received.headers, body };
  }

  /** Signs now (for the topology's audience, which both gateways share); sends when called. */
  function signed(key: AgentKey, gateway: string, method: string, target: string, body: unknown) {
    const payload = JSON.stringify(body);
    const auth = signRequest({ key, audience: topology.baseUrl, method, target, body: payload });
    return () =>
      answer(
        gateway,
        fetch(gateway + target, {
          method,
          headers: {
            authorization: auth.authorization,
            'x-nonce': auth.nonce,
            'content-type': 'application/json',
          },
          body: payload,
        }),
      );
  }

  const read = (gateway: string, path: string, ip: string) =>
    answer(gateway, fetch(gateway + path, { headers: { 'x-forwarded-for': ip } }));

  function expectRateLimited(limited: Answer, limit: string, policy: string): void {
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate.limited', requestId: expect.any(String) });
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('ratelimit-limit')).toBe(limit);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('ratelimit-policy')).toBe(policy);
  }

  it("spends one agent's writes from one budget on both gateways, spares other agents, and lets it write again after Retry-After", async () => {
    const alice = generateAgentKey();
    const card = { handle: 'alice_limited' };
    // 30 writes at once, alternating gateways: the rate (5) and the burst reserve (5) pass, the rest do not.
    const sends = Array.from({ length: 30 }, (_, i) =>
      signed(alice, gateways[i % 2]!, 'PUT', '/directory/me', card),
    );
    const answers = await Promise.all(sends.map((send) => send()));

    const served = answers.filter((a) => a.status !== 429);
    const limited = answers.filter((a) => a.status === 429);
    expect({ served: served.length, limited: limited.length }).toEqual({ served: 10, limited: 20 });
    expect(served.filter((a) => a.status !== 200 && a.status !== 201).map((a) => [a.status, a.body])).toEqual(
      [],
    );
    for (const a of served) {
      expect(a.headers.get('ratelimit-limit')).toBe('5');
      expect(a.headers.get('ratelimit-policy')).toBe('5;w=1;burst=10');
    }
    for (const a of limited) expectRateLimited(a, '5', '5;w=1;burst=10');
    // Each gateway was sent 15 of the 30 and at most 10 pass in all: both refused some.
    expect(new Set(limited.map((a) => a.gateway))).toEqual(new Set(gateways));

    const bob = await signed(generateAgentKey(), gateways[1], 'PUT', '/directory/me', {
      handle: 'bob_spared',
    })();
    expect(bob.status).toBe(201);
    expect(bob.headers.get('ratelimit-remaining')).toBe('4');

    const retryAfter = Math.max(...limited.map((a) => Number(a.headers.get('retry-after'))));
    await sleep(retryAfter * 1000);
    const again = await signed(alice, gateways[1], 'PUT', '/directory/me', card)();
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts a verified write that is then refused for another reason: it was a request', async () => {
    const carol = generateAgentKey();
    // Ten invalid event creations: each verified, counted, then refused (400) by validation.
    const invalid = Array.from({ length: 10 }, (_, i) =>
      signed(carol, gateways[i % 2]!, 'POST', '/events', {}),
    );
    const refused = await Promise.all(invalid.map((send) => send()));
    expect(refused.map((a) => [a.status, a.body?.['code']])).toEqual(
      Array(10).fill([400, 'validation.failed']),
    );
    expect(refused.every((a) => a.headers.get('ratelimit-limit') === '5')).toBe(true);

    const valid = await signed(carol, gateways[0], 'PUT', '/directory/me', { handle: 'carol_limited' })();
    expectRateLimited(valid, '5', '5;w=1;burst=10');
  });

  it('limits public reads per client IP across both gateways, and never the probes or the docs', async () => {
    const ip = '198.51.100.7';
    const reads = Array.from({ length: 30 }, (_, i) => read(gateways[i % 2]!, '/events?limit=1', ip));
    const probes = gateways.flatMap((gateway) =>
      [
        '/healthz',
        '/readyz',
        '/openapi.json',
        '/asyncapi.json',
        '/docs',
        '/docs/errors/rate.limited',
      ].flatMap((path) => Array.from({ length: 4 }, () => read(gateway, path, ip))),
    );
    const [readAnswers, probeAnswers] = await Promise.all([Promise.all(reads), Promise.all(probes)]);

    const served = readAnswers.filter((a) => a.status === 200);
    const limited = readAnswers.filter((a) => a.status === 429);
    expect({ served: served.length, limited: limited.length }).toEqual({ served: 20, limited: 10 });
    expect(served.every((a) => a.headers.get('ratelimit-limit') === '20')).toBe(true);
    for (const a of limited) expectRateLimited(a, '20', '20;w=1');

    expect(probeAnswers.map((a) => a.status)).toEqual(Array(probeAnswers.length).fill(200));
    expect(probeAnswers.filter((a) => a.headers.has('ratelimit-limit'))).toEqual([]);

    // Another address has a budget of its own, on either gateway.
    for (const gateway of gateways)
      expect((await read(gateway, '/events?limit=1', '198.51.100.8')).status).toBe(200);
  });

  it('while Redis is away: signed writes fail closed (503), reads go on, limited per replica by the insurance', async () => {
    await redis.stop();
    for (const gateway of gateways)
      await waitFor(`${gateway} to see Redis gone`, async () =>
        (await fetch(`${gateway}/readyz`)).status === 503 ? true : undefined,
      );

    const ip = '198.51.100.9';
    for (const gateway of gateways) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => read(gateway, '/events?limit=1', ip)),
      );
      // Each replica now counts alone: its own 20 per second.
      expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
      for (const a of answers.filter((a) => a.status !== 200)) expectRateLimited(a, '20', '20;w=1');
    }
    const write = await signed(generateAgentKey(), gateways[0], 'PUT', '/directory/me', { handle: 'dave' })();
    expect([write.status, write.body?.['code']]).toEqual([503, 'dependency.unavailable']);

    await redis.restart();
    const back = await waitFor('signed writes to work again', async () => {
      const attempt = await signed(generateAgentKey(), gateways[1], 'PUT', '/directory/me', {
        handle: 'erin',
      })();
      return attempt.status === 503 ? undefined : attempt;
    });
    expect(back.status).toBe(201);
    expect(back.headers.get('ratelimit-remaining')).toBe('4');
  });
});

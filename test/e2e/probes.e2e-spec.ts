// Probes for the probers (issue [20] item 7): the public port's /healthz and /readyz say ok or not
// and nothing more, from a check run at most once a second, so a flood of them costs the
// dependencies nothing (no SELECT 1 per request on standalone's one PGlite connection, no Redis or
// NATS round trip per request); the operators' port (PROBE_PORT) runs every check each time and
// names what failed. Both modes; the flood's cost is measured as a signed write's p99 latency,
// alone and then under the flood, in the same run.
import { spawn } from 'node:child_process';
import { generateAgentKey, signRequest, type AgentKey } from '@townhall/auth';
import { PrivateRedis, StandaloneProcess, Topology, waitFor } from '@townhall/testing';

interface Deployment {
  gateway: string;
  probe: string;
  audience: string;
  stop(): Promise<void>;
}

async function distributed(redisUrl?: string): Promise<Deployment & { topology: Topology }> {
  const topology = await Topology.start(redisUrl ? { redisUrl } : {});
  return {
    topology,
    gateway: topology.baseUrl,
    probe: `http://127.0.0.1:${topology.gateway.env['PROBE_PORT']}`,
    audience: topology.baseUrl,
    stop: () => topology.stop(),
  };
}

async function standalone(): Promise<Deployment> {
  const process = await StandaloneProcess.start(
    // The write limits off (the agent's and its address's): the test writes as fast as the gateway answers.
    { RATE_LIMIT_WRITES_PER_SECOND: '0', RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0' },
    0,
    { args: ['--probe-port', '0'] },
  );
  const probePort = /Probes\s+http:\/\/localhost:(\d+)/.exec(process.log)?.[1];
  if (!probePort) {
    await process.stop();
    throw new Error(`no probe port in the banner:\n${process.log}`);
  }
  return {
    gateway: process.baseUrl,
    probe: `http://127.0.0.1:${probePort}`,
    audience: `http://localhost:${new URL(process.baseUrl).port}`,
    stop: () => process.stop(),
  };
}

async function json(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** The p-th percentile (0-100) of `values`, nearest rank. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `count` signed writes one after another (PUT /directory/me of one agent); each one's milliseconds. */
async function timedWrites(deployment: Deployment, key: AgentKey, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({
      handle: `probe_${key.agentId.slice(0, 8).toLowerCase()}`,
      bio: `write ${i}`,
    });
    const auth = signRequest({
      key,
      audience: deployment.audience,
      method: 'PUT',
      target: '/directory/me',
      body,
    });
    const started = performance.now();
    const response = await fetch(`${deployment.gateway}/directory/me`, {
      method: 'PUT',
      headers: {
        authorization: auth.authorization,
        'x-nonce': auth.nonce,
        'content-type': 'application/json',
      },
      body,
    });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`a write answered ${response.status}`);
  }
  return times;
}

/**
 * What floods GET /readyz?x: a process of its own (so that the flood's client work does not delay
 * the measured writes' own event loop), `perSecond` requests a second, sent every 10 ms, until it gets
 * SIGTERM; then it prints how many it sent, for how long, and what they were answered.
 */
const FLOOD_SCRIPT = `
const [target, perSecond] = [process.env.FLOOD_TARGET, Number(process.env.FLOOD_PER_SECOND)];
let stopped = false;
process.on('SIGTERM', () => { stopped = true; });
const statuses = {};
const count = (status) => { statuses[status] = (statuses[status] ?? 0) + 1; };
let sent = 0;
const started = performance.now();
const inFlight = [];
(async () => {
  for (let wave = 0; !stopped; wave++) {
    for (let i = 0; i < perSecond / 100; i++) {
      sent += 1;
      inFlight.push(fetch(target + '/readyz?x=' + sent).then(
        async (response) => { await response.arrayBuffer(); count(response.status); },
        (error) => count(String(error && error.message)),
      ));
    }
    const next = started + (wave + 1) * 10;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  process.stdout.write(JSON.stringify({ sent, seconds, statuses }));
})();
`;

interface FloodResult {
  sent: number;
  seconds: number;
  statuses: Record<string, number>;
}

function flood(deployment: Deployment, perSecond: number): { stop(): Promise<FloodResult> } {
  // At the lowest priority: the flood's client shares this machine's two cores with the gateway,
  // and what is measured is what the flood costs the gateway, not what sending it costs here.
  const child = spawn('nice', ['-n', '19', process.execPath, '-e', FLOOD_SCRIPT], {
    env: { ...process.env, FLOOD_TARGET: deployment.gateway, FLOOD_PER_SECOND: String(perSecond) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(output) as FloodResult;
    },
  };
}

describe.each([
  ['standalone', standalone],
  ['distributed', () => distributed()],
])('probes: %s', (mode, start) => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await start();
  });
  afterAll(async () => {
    await deployment?.stop();
  });

  it('answers the public /readyz and /healthz as ok or not only, and every check on the probe port', async () => {
    expect(await json(`${deployment.gateway}/readyz`)).toEqual({ status: 200, body: { ready: true } });
    expect(await json(`${deployment.gateway}/readyz?x=1`)).toEqual({ status: 200, body: { ready: true } });
    expect(await json(`${deployment.gateway}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
    const full = await json(`${deployment.probe}/readyz`);
    expect(full.status).toBe(200);
    const checks = (full.body as { checks: Record<string, string> }).checks;
    expect(Object.keys(checks).sort()).toEqual(
      mode === 'standalone'
        ? [
            'directory-database',
            'engagement-database',
            'events-database',
            'ticketing-database',
            'webhooks-database',
          ]
        : ['nats', 'redis'],
    );
    expect(Object.values(checks).every((state) => state === 'ok')).toBe(true);
  });

  it('GET /readyz?x floods of several hundred a second do not slow a signed write p99 by more than 20 %', async () => {
    const key = generateAgentKey();
    await timedWrites(deployment, key, 200); // warm: JIT, pools, caches
    // Alone and flooded in turn, three times: whatever else the machine does meanwhile weighs on both.
    const baseline: number[] = [];
    const flooded: number[] = [];
    const floods: FloodResult[] = [];
    for (let round = 0; round < 3; round++) {
      baseline.push(...(await timedWrites(deployment, key, 400)));
      const running = flood(deployment, 500);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the flood under way first
      const times = await timedWrites(deployment, key, 400).catch(async (error: unknown) => {
        await running.stop();
        throw error;
      });
      flooded.push(...times);
      floods.push(await running.stop());
    }
    const floodResult = {
      sent: floods.reduce((sum, one) => sum + one.sent, 0),
      seconds: floods.reduce((sum, one) => sum + one.seconds, 0),
      statuses: new Map<string, number>(),
    };
    for (const one of floods)
      for (const [status, count] of Object.entries(one.statuses))
        floodResult.statuses.set(status, (floodResult.statuses.get(status) ?? 0) + count);
    const rate = floodResult.sent / floodResult.seconds;
    const [p99Alone, p99Flooded] = [percentile(baseline, 99), percentile(flooded, 99)];
    process.stdout.write(
      `${mode}: signed write p99 ${p99Alone.toFixed(2)} ms alone, ${p99Flooded.toFixed(2)} ms under ` +
        `${floodResult.sent} GET /readyz?x in ${floodResult.seconds.toFixed(1)} s (${rate.toFixed(0)}/s; ` +
        `answers ${JSON.stringify(Object.fromEntries(floodResult.statuses))}); p50 ` +
        `${percentile(baseline, 50).toFixed(2)} / ${percentile(flooded, 50).toFixed(2)} ms\n`,
    );
    // A flood it was: several hundred a second for seconds, every one answered without a failure.
    expect(rate).toBeGreaterThan(300);
    expect(floodResult.seconds).toBeGreaterThan(5);
    // Answered, every one, 200 (a probe's query is ignored).
    expect([...floodResult.statuses.keys()]).toEqual(['200']);
    expect(p99Flooded).toBeLessThanOrEqual(p99Alone * 1.2);
  });
});

describe('probes when a dependency fails (distributed, Redis stopped)', () => {
  let redis: PrivateRedis;
  let deployment: Deployment;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    deployment = await distributed(redis.url);
  });
  afterAll(async () => {
    await deployment?.stop();
    await redis?.stop();
  });

  it('tells the public port only that it is not ready, and the probe port which dependency and why', async () => {
    await redis.stop();
    await waitFor('the public /readyz to say not ready', async () =>
      (await fetch(`${deployment.gateway}/readyz`)).status === 503 ? true : undefined,
    );
    expect(await json(`${deployment.gateway}/readyz`)).toEqual({ status: 503, body: { ready: false } });
    const full = await json(`${deployment.probe}/readyz`);
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({ ready: false, checks: { nats: 'ok', redis: expect.any(String) } });
    expect((full.body as { checks: { redis: string } }).checks.redis).not.toBe('ok');

    await redis.restart();
    await waitFor('the public /readyz to say ready again', async () =>
      (await fetch(`${deployment.gateway}/readyz`)).status === 200 ? true : undefined,
    );
  });
});

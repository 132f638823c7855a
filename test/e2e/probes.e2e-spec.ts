// Probes for the probers (issue [20] item 7): the public port's /healthz and /readyz say ok or not
// and nothing more, from a check run at most once a second, so a flood of them costs the
// dependencies nothing (no SELECT 1 per request on standalone's one PGlite connection, no Redis or
// NATS round trip per request); the operators' port (PROBE_PORT) runs every check each time and
// names what failed. Both modes; the flood's cost is measured as a signed write's p99 latency,
// alone and under the flood, in turns of a quarter of a second in the same run.
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
/**
 * The flood's rate: several hundred probes a second from one client. Each costs the process that
 * answers it one HTTP exchange, about 150 µs of its event loop on a 2-core CI machine (a bare Node
 * HTTP server costs the same), which in standalone mode is the loop of the services and PGlite too.
 */
const FLOOD_PER_SECOND = 300;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A signed write's start (epoch ms) and how long it took (ms). */
interface TimedWrite {
  startedAt: number;
  ms: number;
}

/** `count` signed writes one after another (PUT /directory/me of one agent), each timed. */
/** Signed writes one after another: `count` of them, and more until `until` (ms since the epoch) if given. */
async function timedWrites(
  deployment: Deployment,
  key: AgentKey,
  count: number,
  until = 0,
): Promise<TimedWrite[]> {
  const times: TimedWrite[] = [];
  for (let i = 0; i < count || Date.now() < until; i++) {
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
    const startedAt = Date.now();
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
    times.push({ startedAt, ms: performance.now() - started });
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`a write answered ${response.status}`);
  }
  return times;
}

/** How long the flood is on, then off, in turn (ms). */
const PHASE_MS = 250;
/** A write that starts this soon after the flood turns off may still meet its last probes. */
const SETTLE_MS = 25;

/** Whether the flood was on during a write: undefined for a write across a turn, or just after one. */
function floodedDuring(write: TimedWrite, epoch: number): boolean | undefined {
  const since = write.startedAt - epoch;
  const phase = Math.floor(since / PHASE_MS);
  const endPhase = Math.floor((since + write.ms) / PHASE_MS);
  if (since < 0 || phase !== endPhase || since - phase * PHASE_MS < SETTLE_MS) return undefined;
  return phase % 2 === 0;
}

/**
 * What floods GET /readyz?x: a process of its own (so that the flood's client work does not delay
 * the measured writes' own event loop), `perSecond` requests a second, sent every 10 ms while the
 * flood is on: from FLOOD_EPOCH (epoch ms) on for PHASE_MS, off for PHASE_MS, in turn, until it gets
 * SIGTERM; then it prints how many it sent, for how long it was on, and what they were answered.
 */
const FLOOD_SCRIPT = `
const net = require('node:net');
const [target, perSecond] = [new URL(process.env.FLOOD_TARGET), Number(process.env.FLOOD_PER_SECOND)];
const [epoch, phaseMs] = [Number(process.env.FLOOD_EPOCH), Number(process.env.FLOOD_PHASE_MS)];
let stopped = false;
process.on('SIGTERM', () => { stopped = true; });
// Requests written on a few kept-alive connections, answers counted by their status lines: the
// flood's own client costs next to nothing, so what the writes feel is what the server pays.
const sockets = Array.from({ length: 4 }, () => net.connect(Number(target.port), target.hostname));
const statuses = {};
for (const socket of sockets) {
  let pending = '';
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    const statusLine = /HTTP\\/1\\.1 (\\d{3})/g;
    let end = 0;
    for (let match; (match = statusLine.exec(pending)); end = statusLine.lastIndex)
      statuses[match[1]] = (statuses[match[1]] ?? 0) + 1;
    pending = pending.slice(Math.max(end, pending.length - 16));
  });
}
let sent = 0;
let onWaves = 0;
(async () => {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, epoch - Date.now())));
  for (let wave = 0; !stopped; wave++) {
    if (Math.floor((Date.now() - epoch) / phaseMs) % 2 === 0) {
      onWaves += 1;
      for (let i = 0; i < perSecond / 100; i++) {
        sent += 1;
        sockets[sent % sockets.length].write('GET /readyz?x=' + sent + ' HTTP/1.1\\r\\nHost: ' + target.host + '\\r\\n\\r\\n');
      }
    }
    const next = epoch + (wave + 1) * 10;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  const answered = () => Object.values(statuses).reduce((sum, n) => sum + n, 0);
  for (let i = 0; i < 100 && answered() < sent; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const socket of sockets) socket.destroy();
  process.stdout.write(JSON.stringify({ sent, seconds: onWaves / 100, statuses }));
})();
`;

interface FloodResult {
  sent: number;
  seconds: number;
  statuses: Record<string, number>;
}

function flood(deployment: Deployment, perSecond: number, epoch: number): { stop(): Promise<FloodResult> } {
  // At the lowest priority: the flood's client shares this machine's two cores with the gateway,
  // and what is measured is what the flood costs the gateway, not what sending it costs here.
  const child = spawn('nice', ['-n', '19', process.execPath, '-e', FLOOD_SCRIPT], {
    env: {
      ...process.env,
      FLOOD_TARGET: deployment.gateway,
      FLOOD_PER_SECOND: String(perSecond),
      FLOOD_EPOCH: String(epoch),
      FLOOD_PHASE_MS: String(PHASE_MS),
    },
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

  it('GET /readyz?x floods of several hundred a second slow a signed write by at most 20 % at the median and 50 % at p99', async () => {
    const key = generateAgentKey();
    await timedWrites(deployment, key, 200); // warm: JIT, pools, caches
    // The flood is on and off in turn, a quarter of a second each, while the writes go on: each
    // write is counted as flooded or alone by when it ran, so whatever else this shared machine
    // does meanwhile weighs on both alike (two long runs one after the other measured the
    // neighbours as much as the flood). Three such measurements, and the verdict is on all their
    // writes together. A flood that reached the dependencies (a SELECT 1 on standalone's one PGlite
    // connection per probe, a Redis and a NATS round trip per probe) starves the writes: their median
    // moves. The p99 of a few thousand sequential writes on this shared machine is their 25 slowest,
    // which stalls of the machine decide as much as the flood: with nothing changed, one measurement's
    // p99 ratio ranged from 0.8 to 1.5 and the three together from 0.87 to 1.26, while the medians
    // moved at most 12 %. So the median is held to 20 %, and the p99 to 50 %.
    const [allFlooded, allAlone]: [number[], number[]] = [[], []];
    for (let measurement = 0; measurement < 3; measurement++) {
      const epoch = Date.now() + 500;
      const running = flood(deployment, FLOOD_PER_SECOND, epoch);
      // At least 2,000 writes, and for at least six seconds of turns (three of flood) however fast
      // the writes are: a fast machine's 2,000 writes were over with 2.2 s of flood.
      const writes = await timedWrites(deployment, key, 2_000, epoch + 6_000).catch(
        async (error: unknown) => {
          await running.stop();
          throw error;
        },
      );
      const floodResult = await running.stop();
      const flooded = writes.filter((write) => floodedDuring(write, epoch) === true).map((w) => w.ms);
      const baseline = writes.filter((write) => floodedDuring(write, epoch) === false).map((w) => w.ms);
      const rate = floodResult.sent / floodResult.seconds;
      const [p99Alone, p99Flooded] = [percentile(baseline, 99), percentile(flooded, 99)];
      allFlooded.push(...flooded);
      allAlone.push(...baseline);
      process.stdout.write(
        `${mode}: signed write p99 ${p99Alone.toFixed(2)} ms alone (${baseline.length} writes), ` +
          `${p99Flooded.toFixed(2)} ms flooded (${flooded.length}, ${(p99Flooded / p99Alone).toFixed(2)}x), under ${floodResult.sent} ` +
          `GET /readyz?x in ${floodResult.seconds.toFixed(1)} s on (${rate.toFixed(0)}/s; answers ` +
          `${JSON.stringify(floodResult.statuses)}); p50 ${percentile(baseline, 50).toFixed(2)} / ` +
          `${percentile(flooded, 50).toFixed(2)} ms\n`,
      );
      expect(Math.min(baseline.length, flooded.length)).toBeGreaterThan(300);
      // A flood it was: several hundred a second for seconds, every one answered without a failure.
      expect(rate).toBeGreaterThan(FLOOD_PER_SECOND * 0.9);
      expect(floodResult.seconds).toBeGreaterThan(2.5);
      // Answered, every one, 200 (a probe's query is ignored).
      expect(Object.keys(floodResult.statuses)).toEqual(['200']);
    }
    const [median, p99] = [50, 99].map((p) => percentile(allFlooded, p) / percentile(allAlone, p));
    process.stdout.write(
      `${mode}: all ${allFlooded.length} flooded / all ${allAlone.length} alone writes: ` +
        `median ${median!.toFixed(2)}, p99 ${p99!.toFixed(2)}\n`,
    );
    expect({ median: median! <= 1.2, p99: p99! <= 1.5 }).toEqual({ median: true, p99: true });
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

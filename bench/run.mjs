// `npm run bench`: first standalone mode alone (bench/standalone.mjs: `npm start` on a new data
// folder to ready, its resident memory after a workload, a restart); then it boots the distributed topology (every service and the gateway as separate
// processes on the real NATS, Redis and Postgres) and drives the hot paths from separate load
// processes: signed reads, paid RSVPs on one hot event, question posts to one live event, public
// reads of that event's questions, its watch page, and the SSE fan-out to 10,000 subscribers. Each scenario is
// reported with the CPU each process spent per request and as a ratio to what bounds it on this
// machine, measured in the same run (before and after the scenarios, averaged): the single-core
// node:crypto Ed25519 verify rate, and the rate of a conditional UPDATE of one hot Postgres row
// from 32 clients.
import { spawn } from 'node:child_process';
import { randomBytes, generateKeyPairSync, sign, verify, createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUS_ACCESS, BUS_APPS } from '@townhall/contracts';
import { AgentClient, generateAgentKey } from '@townhall/sdk';
import { connectAs } from '@townhall/testing';
import { encodePaymentHeader, signLedgerPayment } from '@townhall/x402';
import { GATEWAY, ROOT } from '../tools/launcher.mjs';
import { measureStandalone } from './standalone.mjs';
import { benchSystem, rssOf } from './system.mjs';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
/** BENCH_ONLY=questions,public runs only those scenarios (e.g. to profile one of them). */
const SCENARIOS = [
  'standalone',
  'reads',
  'reads-rfc9421',
  'paid',
  'questions',
  'subscribed',
  'public',
  'watch',
  'fanout',
  'traced',
];
const ONLY = new Set((process.env.BENCH_ONLY ?? SCENARIOS.join(',')).split(',').map((name) => name.trim()));
const unknown = [...ONLY].filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0)
  throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')}; choose from ${SCENARIOS.join(', ')}`);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DATABASE_STATS = process.env.BENCH_DATABASE_STATS === '1';
const PORT = Number(process.env.BENCH_PORT ?? 3990);
// Standalone first, alone on the machine: `npm start` on a new data folder, its memory, a restart.
const standaloneReport = ONLY.has('standalone')
  ? await measureStandalone({ port: PORT, probePort: PORT + 1 })
  : undefined;
// The SSE fan-out opens 1,000 streams from the load generator's one address: past the per-address cap.
// The webhook subscriptions of the 'subscribed' scenario point at 127.0.0.1 (nothing is sent to them).
const system = await benchSystem({
  port: PORT,
  name: 'bench',
  env: {
    LIVE_STREAMS_PER_CLIENT: '10000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // BENCH_GATEWAY_WORKERS=2 runs the gateway as a primary and two workers (GATEWAY_WORKERS).
    GATEWAY_WORKERS: process.env.BENCH_GATEWAY_WORKERS ?? '1',
  },
});
const { audience, env } = system;

/**
 * BENCH_PROFILE=dir writes a V8 CPU profile of each app there, to see where the time goes.
 * BENCH_PERF=1 instead has each app write the map that lets Linux `perf record -a` name its
 * JavaScript frames: the CPU a process really spends, kernel included, where a V8 profile counts
 * the wall time of a socket write in which the writer was descheduled.
 */
function profileArgs(app) {
  if (process.env.BENCH_PERF)
    return ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'];
  return process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}/${app}`]
    : [];
}

/**
 * Conditional UPDATEs of one hot row per second from `clients` connections, each in its own
 * transaction (autocommit): what a seat counter shared by every buyer can do here at most.
 */
async function hotRowRate(databaseUrl, seconds = 3, clients = 32) {
  const { default: pg } = await import('pg');
  const setup = new pg.Client({ connectionString: databaseUrl });
  await setup.connect();
  await setup.query('DROP TABLE IF EXISTS bench_hot_row');
  await setup.query(
    'CREATE TABLE bench_hot_row (id int PRIMARY KEY, sold bigint NOT NULL, capacity bigint NOT NULL)',
  );
  await setup.query('INSERT INTO bench_hot_row VALUES (1, 0, 1000000000)');
  const connections = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  let count = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    connections.map(async (client) => {
      while (performance.now() < end) {
        await client.query({
          name: 'hot',
          text: 'UPDATE bench_hot_row SET sold = sold + 1 WHERE id = 1 AND sold < capacity',
        });
        count += 1;
      }
    }),
  );
  await Promise.all(connections.map((client) => client.end()));
  await setup.query('DROP TABLE bench_hot_row');
  await setup.end();
  return count / seconds;
}

/** Single-core Ed25519 verifies per second with node:crypto on one cached KeyObject. */
function verifyRate(seconds = 2) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const message = Buffer.from('x'.repeat(300));
  const signature = sign(null, message, privateKey);
  let count = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) verify(null, message, key, signature);
    count += 200;
  }
  return count / seconds;
}

/** CPU seconds (user + system) used so far by each process of interest, keyed by a label. */
function cpuSnapshot(labels) {
  const ticks = 100; // USER_HZ
  const snapshot = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, and cutime + cstime: the CPU of its children that ended (a PostgreSQL
      // backend whose connection closed during the load is counted by the postmaster that reaped it).
      const seconds =
        (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks;
      // An app's own children (the gateway's workers, GATEWAY_WORKERS) count as the app.
      const label =
        labels.get(Number(pid)) ??
        labels.get(Number(fields[1])) ??
        (['nats-server', 'redis-server', 'postgres'].includes(comm) ? comm : undefined);
      if (label) snapshot.set(label, (snapshot.get(label) ?? 0) + seconds);
    } catch {
      // the process ended while we looked
    }
  }
  return snapshot;
}

/** A child's JSON result, or why there is none: never a throw in an event handler (the apps must be stopped). */
function resultOf(resolve, reject, code, out, what) {
  if (code !== 0) return reject(new Error(`${what} exited ${code}`));
  try {
    resolve(JSON.parse(out));
  } catch (error) {
    reject(error);
  }
}

function runLoad(options, onStart = () => {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'townhall-bench-')), 'load.json');
  writeFileSync(file, JSON.stringify(options));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/load.mjs', file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      if (chunk.toString().includes('signed')) onStart(child.pid);
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => resultOf(resolve, reject, code, out, 'load generator'));
  });
}

/**
 * Durable consumers paused by their gate, which settle() does not wait for: the webhooks fan-out
 * pulls nothing until the first subscription (the 'subscribed' scenario makes some).
 */
const pausedDurables = new Set(['webhooks-fan-out']);

/**
 * Waits until the work a load left behind is done: every outbox published, every durable consumer
 * of the TOWNHALL stream caught up. The CPU a request costs includes its domain events' effects.
 */
async function settle(timeoutMs = 120_000) {
  const { default: pg } = await import('pg');
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  // Each app's user may read its own durables only: one connection per app that has any (or one
  // anonymous connection to a shared NATS without authorization).
  const readers = await Promise.all(
    BUS_APPS.filter((app) => BUS_ACCESS[app].durables.length > 0).map(async (app) => {
      const nc = system.nats ? await connectAs(system.nats, app) : await connect({ servers: env.NATS_URL });
      return { durables: BUS_ACCESS[app].durables, nc, jsm: await jetstreamManager(nc) };
    }),
  );
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [{ pending }] = (
        await db.query(
          `SELECT (SELECT count(*) FROM events.outbox WHERE published_at IS NULL)
                + (SELECT count(*) FROM ticketing.outbox WHERE published_at IS NULL)
                + (SELECT count(*) FROM engagement.outbox WHERE published_at IS NULL)
                + (SELECT count(*) FROM directory.outbox WHERE published_at IS NULL)::int AS pending`,
        )
      ).rows;
      let behind = 0;
      for (const { durables, jsm } of readers)
        for (const durable of durables) {
          if (pausedDurables.has(durable)) continue;
          const consumer = await jsm.consumers.info('TOWNHALL', durable).catch(() => undefined);
          if (consumer) behind += consumer.num_pending + consumer.num_ack_pending;
        }
      if (Number(pending) === 0 && behind === 0) return;
      if (Date.now() > deadline)
        throw new Error(`not settled: ${pending} in outboxes, ${behind} in consumers`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await Promise.all(readers.map(({ nc }) => nc.close()));
    await db.end();
  }
}

/**
 * Runs one load and reports throughput and latency (of the load's window), and the CPU each
 * process spent per successful request from the start of the load until its effects settled.
 */
async function measure(name, load, labels) {
  let before;
  const databaseBefore = DATABASE_STATS ? await databaseActivity() : undefined;
  const result = await runLoad(load, () => {
    before = cpuSnapshot(labels);
  });
  await settle();
  const after = cpuSnapshot(labels);
  // A backend sends its counters at most once a second, and an idle one within 10 s.
  if (DATABASE_STATS) await new Promise((resolve) => setTimeout(resolve, 11_000));
  const databaseAfter = DATABASE_STATS ? await databaseActivity() : undefined;
  after.set('load generator', result.cpuSeconds);
  const ok = result['2xx'];
  return {
    scenario: name,
    method: load.method,
    requestsPerSecond: Math.round(result.requests.average),
    ok2xx: ok,
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: Number((result.duration ?? 0).toFixed(1)),
    // Successful requests per second of the run: a run of N one-shot requests ends when they are done.
    okPerSecond: Math.round(ok / Math.max(result.duration ?? 0, 0.001)),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    // BENCH_DATABASE_STATS=1: what the database did per successful request (pg_stat_database):
    // its transactions and the rows they wrote and read.
    ...(databaseAfter && {
      databasePerRequest: Object.fromEntries(
        Object.entries(databaseAfter).map(([key, value]) => [
          key,
          Number(((value - databaseBefore[key]) / Math.max(ok, 1)).toFixed(2)),
        ]),
      ),
    }),
    cpuMicrosecondsPerRequest: Object.fromEntries(
      [...after]
        .map(([label, seconds]) => [
          label,
          Math.round(((seconds - (before?.get(label) ?? 0)) * 1e6) / Math.max(ok, 1)),
        ])
        .sort((a, b) => b[1] - a[1]),
    ),
  };
}

/** The run's database's counters so far (pg_stat_database): transactions, rows written and read. */
async function databaseActivity() {
  const { default: pg } = await import('pg');
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    // The counters are sent to the statistics system at the end of each transaction, at most once a second.
    await db.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await db.query(
      `SELECT xact_commit + xact_rollback AS transactions, tup_inserted AS inserted, tup_updated AS updated,
              tup_deleted AS deleted, tup_fetched AS fetched
         FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Object.fromEntries(Object.entries(rows[0]).map(([key, value]) => [key, Number(value)]));
  } finally {
    await db.end();
  }
}

/** The bounds of this machine, measured now: verifies per second on one core, hot-row UPDATEs per second. */
async function bounds() {
  return { verify: verifyRate(), hotRow: await hotRowRate(env.DATABASE_URL) };
}

/** SSE subscribers in `processes` client processes; resolves with every latency once all are done. */
async function fanOut(eventId, subscribers, posts, post, processes) {
  let ready = 0;
  const children = Array.from({ length: processes }, (_, i) => {
    const share = Math.floor(subscribers / processes) + (i < subscribers % processes ? 1 : 0);
    const child = spawn(
      process.execPath,
      ['bench/sse-subscribers.mjs', audience, eventId, String(share), String(posts), '90000'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => {
      if (!chunk.toString().includes('ready')) return process.stderr.write(chunk);
      if (++ready === processes) void post();
    });
    return new Promise((resolve, reject) =>
      child.once('exit', (code) => resultOf(resolve, reject, code, out, 'subscribers')),
    );
  });
  const results = await Promise.all(children);
  const latencies = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null;
  return { deliveries: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

console.log(`Townhall bench on ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
await system.prepare();
const before = await bounds();
console.error(
  `bounds before: verify ${Math.round(before.verify)}/s on one core, hot-row UPDATE ${Math.round(before.hotRow)}/s`,
);
const children = await system.start(profileArgs);
let paidReport;
let questionReport;
try {
  const labels = new Map(children.map((c) => [c.child.pid, c.name]));
  const gatewayPid = children.find((c) => c.name === GATEWAY).child.pid;
  const hex = (key) => Buffer.from(key.secretKey).toString('hex');

  // 1. Signed reads of one directory card: by service-auth-v1, and (1b) by RFC 9421
  // (docs/protocol/signing.md section 8: two structured fields parsed and a signature base built
  // per request, beside the same verify).
  const signedReads = async (scheme, title) => {
    const key = generateAgentKey();
    const agent = new AgentClient({ baseUrl: audience, key });
    await agent.directory.putMe({ handle: `bench_${randomBytes(3).toString('hex')}`, displayName: 'Bench' });
    const signer = {
      secretKeyHex: hex(key),
      agentId: key.agentId,
      scheme,
      count: Number(process.env.BENCH_PRESIGNED ?? 12_000 * DURATION),
    };
    const reads = {
      url: audience,
      audience,
      method: 'GET',
      target: `/directory/${key.agentId}`,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      signers: [signer],
    };
    await runLoad({ ...reads, durationSeconds: 2, signers: [{ ...signer, count: 30_000 }] }); // warm-up
    const report = await measure(
      `${title} GET /directory/{agentId}, ${CONNECTIONS} connections, ${DURATION} s`,
      reads,
      labels,
    );
    const memory = rssOf(gatewayPid);
    report.gatewayRssMb = { now: Math.round(memory.rssMb), peak: Math.round(memory.peakMb) };
    return report;
  };
  const readReport = ONLY.has('reads') ? await signedReads('service-auth-v1', 'signed') : undefined;
  const messageReadReport = ONLY.has('reads-rfc9421')
    ? await signedReads('rfc9421', 'signed (RFC 9421)')
    : undefined;

  const host = new AgentClient({ baseUrl: audience });

  // 2. Paid RSVPs on one hot event: every buyer funded, its x402 payment signed beforehand.
  if (ONLY.has('paid')) {
    const BUYERS = Number(process.env.BENCH_BUYERS ?? 3000);
    const startsAt = new Date(Date.now() + 86_400_000);
    const event = await host.events.create({
      title: 'Bench: one hot event',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
      timezone: 'UTC',
      capacity: 1_000_000,
      ticketing: { mode: 'single', price: '100' },
    });
    const buyers = Array.from({ length: BUYERS }, () => new AgentClient({ baseUrl: audience }));
    for (let i = 0; i < buyers.length; i += 100)
      await Promise.all(buyers.slice(i, i + 100).map((buyer) => buyer.ledger.faucet('1000')));
    const accepts = await buyers[0].request('POST', `/events/${event.id}/rsvp`).then(
      () => {
        throw new Error('expected 402');
      },
      (error) => error.problem.accepts,
    );
    paidReport = await measure(
      `paid RSVP (x402 on the ledger) to one event, ${BUYERS} buyers, ${CONNECTIONS} connections`,
      {
        url: audience,
        audience,
        method: 'POST',
        target: `/events/${event.id}/rsvp`,
        body: '{}',
        connections: CONNECTIONS,
        signers: buyers.map((buyer) => ({
          secretKeyHex: hex(buyer.key),
          agentId: buyer.agentId,
          count: 1,
          headers: { 'x-payment': encodePaymentHeader(signLedgerPayment(buyer.key, accepts[0])) },
        })),
      },
      labels,
    );
  }

  // 3. Signed question posts to one live event: attendees (free RSVP), 5 each (the per-minute limit).
  const ASKERS = Number(process.env.BENCH_ASKERS ?? 1200);
  const amaStart = new Date(Date.now() + 3_600_000);
  /** A live event with ASKERS attendees, each holding a free ticket. */
  const liveWithAskers = async (title) => {
    const event = await host.events.create({
      title,
      startsAt: amaStart.toISOString(),
      endsAt: new Date(amaStart.getTime() + 3_600_000).toISOString(),
      timezone: 'UTC',
      capacity: 100_000,
    });
    await host.events.start(event.id);
    const attendees = Array.from({ length: ASKERS }, () => new AgentClient({ baseUrl: audience }));
    for (let i = 0; i < attendees.length; i += 100)
      await Promise.all(attendees.slice(i, i + 100).map((a) => a.tickets.rsvp(event.id)));
    return { event, attendees };
  };
  /** Each attendee posts 5 questions to the event, signed, from CONNECTIONS connections. */
  const postQuestions = (scenario, { event, attendees }, body, questionLabels = labels) =>
    measure(
      `${scenario}, ${ASKERS} attendees x 5, ${CONNECTIONS} connections`,
      {
        url: audience,
        audience,
        method: 'POST',
        target: `/events/${event.id}/questions`,
        body: JSON.stringify({ body }),
        connections: CONNECTIONS,
        signers: attendees.map((asker) => ({
          secretKeyHex: hex(asker.key),
          agentId: asker.agentId,
          count: 5,
        })),
      },
      questionLabels,
    );
  const live = await liveWithAskers('Bench: AMA');
  const ama = live.event;
  if (ONLY.has('questions'))
    questionReport = await postQuestions(
      'signed question posts to one live event',
      live,
      'How does the outbox keep the stream and the database in step?',
    );

  // 3b. The same posts to another live event, with 20 webhook subscriptions on another topic
  // (townhall.series.*, which no post announces): the fan-out's in-memory filter at work.
  let subscribedReport;
  if (ONLY.has('subscribed')) {
    for (let i = 0; i < 20; i += 1)
      await new AgentClient({ baseUrl: audience }).webhooks.create({
        url: `http://127.0.0.1:9/bench-${i}`,
        types: ['townhall.series.*'],
      });
    // The fan-out's gate is open now: it takes up the stream so far, before the measured load.
    pausedDurables.delete('webhooks-fan-out');
    const askers = await liveWithAskers('Bench: AMA with webhook subscribers elsewhere');
    await settle();
    subscribedReport = await postQuestions(
      'signed question posts, 20 webhook subscriptions on townhall.series.*',
      askers,
      'Does a subscription to another topic cost this post anything?',
    );
  }

  // 4. Public reads of the live event's questions (the first page, top first), unsigned.
  let publicReport;
  if (ONLY.has('public')) {
    const publicReads = {
      url: audience,
      audience,
      method: 'GET',
      target: `/events/${ama.id}/questions?sort=top`,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
    };
    await runLoad({ ...publicReads, durationSeconds: 2 }); // warm-up
    publicReport = await measure(
      `public GET /events/{id}/questions?sort=top of the live event, ${CONNECTIONS} connections, ${DURATION} s`,
      publicReads,
      labels,
    );
  }

  // 5. The watch page of the live event (HTML, rendered on every request from six public reads).
  let watchReport;
  if (ONLY.has('watch')) {
    const pages = {
      url: audience,
      audience,
      method: 'GET',
      target: `/events/${ama.id}/watch`,
      headers: { accept: 'text/html' },
      connections: CONNECTIONS,
      durationSeconds: DURATION,
    };
    await runLoad({ ...pages, durationSeconds: 2 }); // warm-up
    watchReport = await measure(
      `GET /events/{id}/watch of the live event (HTML), ${CONNECTIONS} connections, ${DURATION} s`,
      pages,
      labels,
    );
  }

  // 6. SSE fan-out: subscribers of the live stream in several client processes, 20 stage posts;
  //    latency from the stage message's creation to its arrival at each subscriber.
  let fanoutReport;
  if (ONLY.has('fanout')) {
    const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
    const POSTS = 20;
    let cpuAtReady = new Map();
    const fanout = await fanOut(
      ama.id,
      SUBSCRIBERS,
      POSTS,
      async () => {
        cpuAtReady = cpuSnapshot(labels);
        for (let i = 0; i < POSTS; i++) {
          await host.stage.post(ama.id, `Stage message ${i + 1}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      Number(process.env.BENCH_SSE_PROCESSES ?? 4),
    );
    const cpuAfterFanout = cpuSnapshot(labels);
    const gatewayAfterFanout = rssOf(gatewayPid);
    fanoutReport = {
      scenario: `SSE fan-out: ${SUBSCRIBERS} subscribers of /events/{id}/live, ${POSTS} stage posts`,
      subscribers: SUBSCRIBERS,
      deliveries: fanout.deliveries,
      expected: SUBSCRIBERS * POSTS,
      latencyMs: { p50: fanout.p50, p99: fanout.p99, max: fanout.max },
      gatewayRssMb: Math.round(gatewayAfterFanout.rssMb),
      // The gateway's CPU per message delivered to one subscriber, from all connected to all received.
      gatewayCpuMicrosecondsPerDelivery: Math.round(
        ((cpuAfterFanout.get(GATEWAY) - cpuAtReady.get(GATEWAY)) * 1e6) / Math.max(fanout.deliveries, 1),
      ),
    };
  }

  // 7. Tracing's cost, measured in turns: the apps started again untraced, with every request
  // traced (OTEL_EXPORTER_OTLP_ENDPOINT: a collector in this process that takes each export and
  // drops it) and with tracing on but nothing sampled, in rotating order, each turn's question
  // posts to a live event with attendees of its own. This VM's speed drifts by more than tracing
  // costs between two measurements a minute apart, so one pair decides nothing: each turn compares
  // its traced and unsampled posts with its own untraced ones, in load units (CPU per post divided
  // by the load generator's, which sends the same kind of pre-signed requests in every turn), and
  // the verdict is the median of the turns.
  let tracedReport;
  if (ONLY.has('traced') && questionReport) {
    const collector = await startDiscardingCollector();
    const TURNS = Number(process.env.BENCH_TRACE_TURNS ?? 3);
    const tracing = (ratio) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: String(ratio),
    });
    // BENCH_TRACE_RATIO=0.1 samples a tenth of the requests (what a busy deployment runs).
    const ratio = Number(process.env.BENCH_TRACE_RATIO ?? 1);
    const kinds = [
      { name: 'untraced', env: { OTEL_EXPORTER_OTLP_ENDPOINT: undefined } },
      { name: 'traced', env: tracing(ratio) },
      { name: 'unsampled', env: tracing(0) },
    ];
    const loadUnits = (report) => {
      const { ['load generator']: load, ...apps } = report.cpuMicrosecondsPerRequest;
      return Object.values(apps).reduce((sum, us) => sum + us, 0) / load;
    };
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    try {
      const turns = [];
      for (let turn = 0; turn < TURNS; turn += 1) {
        const measured = {};
        for (const kind of [...kinds.slice(turn % 3), ...kinds.slice(0, turn % 3)]) {
          for (const [name, value] of Object.entries(kind.env)) {
            if (value === undefined) delete system.env[name];
            else system.env[name] = value;
          }
          const restarted = await system.restart({}, profileArgs);
          const turnLabels = new Map(restarted.map((c) => [c.child.pid, c.name]));
          const askers = await liveWithAskers(`Bench: ${kind.name} AMA ${turn + 1}`);
          await settle();
          const spansBefore = collector.spans();
          measured[kind.name] = await postQuestions(
            `signed question posts, ${kind.name} (turn ${turn + 1} of ${TURNS})`,
            askers,
            'What does a trace cost?',
            turnLabels,
          );
          measured[kind.name].spansExported = collector.spans() - spansBefore;
        }
        turns.push({
          tracedCpuChange: loadUnits(measured.traced) / loadUnits(measured.untraced) - 1,
          unsampledCpuChange: loadUnits(measured.unsampled) / loadUnits(measured.untraced) - 1,
          measured,
        });
      }
      const last = turns[turns.length - 1].measured;
      tracedReport = {
        ...last.traced,
        scenario: `signed question posts, traced (OTLP/HTTP to a collector, ${ratio} of requests sampled), ${TURNS} turns`,
        ratioSampled: ratio,
        spansPerPost: Number((last.traced.spansExported / Math.max(last.traced.ok2xx, 1)).toFixed(1)),
        turns: turns.map((turn) => ({
          tracedCpuChange: Number(turn.tracedCpuChange.toFixed(3)),
          unsampledCpuChange: Number(turn.unsampledCpuChange.toFixed(3)),
          okPerSecond: Object.fromEntries(Object.entries(turn.measured).map(([k, r]) => [k, r.okPerSecond])),
        })),
        // Where each kind's CPU per post went, process by process: the median over the turns of
        // (traced or unsampled - untraced), in microseconds of the untraced turn's load units.
        changeByProcess: Object.fromEntries(
          ['traced', 'unsampled'].map((kind) => [
            kind,
            Object.fromEntries(
              Object.keys(turns[0].measured.untraced.cpuMicrosecondsPerRequest)
                .filter((name) => name !== 'load generator')
                .map((name) => [
                  name,
                  Math.round(
                    median(
                      turns.map(({ measured }) => {
                        const unit = (report) => report.cpuMicrosecondsPerRequest['load generator'];
                        const inUntracedUnits = (report) =>
                          ((report.cpuMicrosecondsPerRequest[name] ?? 0) / unit(report)) *
                          unit(measured.untraced);
                        return inUntracedUnits(measured[kind]) - inUntracedUnits(measured.untraced);
                      }),
                    ),
                  ),
                ]),
            ),
          ]),
        ),
        cpuChange: Number(median(turns.map((turn) => turn.tracedCpuChange)).toFixed(3)),
        unsampledCpuChange: Number(median(turns.map((turn) => turn.unsampledCpuChange)).toFixed(3)),
      };
    } finally {
      await collector.stop();
    }
  }

  const after = await bounds();
  const verify = (before.verify + after.verify) / 2;
  const hotRow = (before.hotRow + after.hotRow) / 2;
  const rows = [
    ['signed read', readReport, verify, 'verify', 0.5],
    ['signed read (RFC 9421)', messageReadReport, verify, 'verify', 0.5],
    ['paid RSVP', paidReport, hotRow, 'hot row', 0.35],
    ['signed question post', questionReport, verify, 'verify', 0.1],
    ['question post, 20 subscriptions elsewhere', subscribedReport, verify, 'verify', 0.1],
    ['public GET questions', publicReport, verify, 'verify', 1.0],
    ['watch page', watchReport, verify, 'verify', 0.1],
  ].filter(([, report]) => report !== undefined);
  for (const [, report, bound, boundName, target] of rows) {
    report.ratio = Number((report.okPerSecond / bound).toFixed(3));
    report.boundedBy = boundName;
    report.target = target;
  }
  console.log(
    JSON.stringify(
      {
        bounds: {
          verifyPerSecondOneCore: { before: Math.round(before.verify), after: Math.round(after.verify) },
          hotRowUpdatesPerSecond: { before: Math.round(before.hotRow), after: Math.round(after.hotRow) },
        },
        scenarios: [
          standaloneReport,
          readReport,
          messageReadReport,
          paidReport,
          questionReport,
          subscribedReport,
          publicReport,
          watchReport,
          fanoutReport,
          tracedReport,
        ].filter(Boolean),
      },
      null,
      2,
    ),
  );
  console.log(
    `\nbounds (mean of before and after): node:crypto verify ${Math.round(verify)}/s on one core; ` +
      `hot-row conditional UPDATE ${Math.round(hotRow)}/s from 32 clients\n`,
  );
  console.log('| path | rate | p50 / p99 | ratio | target | met | CPU per request (us) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, report, , boundName, target] of rows) {
    const cpu = Object.entries(report.cpuMicrosecondsPerRequest)
      .filter(([, us]) => us > 0)
      .map(([label, us]) => `${label} ${us}`)
      .join(', ');
    console.log(
      `| ${name} | ${report.okPerSecond}/s | ${report.latencyMs.p50} / ${report.latencyMs.p99} ms | ` +
        `${report.ratio} x ${boundName} | ${target} | ${report.ratio >= target ? 'yes' : 'NO'} | ${cpu} |`,
    );
  }
  if (fanoutReport)
    console.log(
      `| SSE fan-out | ${fanoutReport.subscribers} subscribers, ${fanoutReport.deliveries}/${fanoutReport.expected} delivered | ` +
        `${fanoutReport.latencyMs.p50} / ${fanoutReport.latencyMs.p99} ms | | p99 < 250 ms | ` +
        `${fanoutReport.deliveries === fanoutReport.expected && fanoutReport.latencyMs.p99 < 250 ? 'yes' : 'NO'} | gateway RSS ${fanoutReport.gatewayRssMb} MB, gateway CPU ${fanoutReport.gatewayCpuMicrosecondsPerDelivery} us per delivery |`,
    );
  if (tracedReport) {
    const turns = tracedReport.turns
      .map((turn) => `${signed(turn.tracedCpuChange)} / ${signed(turn.unsampledCpuChange)}`)
      .join(', ');
    console.log(
      `| question post, traced (${tracedReport.ratioSampled} sampled) | ${tracedReport.okPerSecond}/s | ` +
        `${tracedReport.latencyMs.p50} / ${tracedReport.latencyMs.p99} ms | | +15% CPU | ` +
        `${tracedReport.cpuChange <= 0.15 ? 'yes' : 'NO'} | CPU per post ${signed(tracedReport.cpuChange)} (median of ${tracedReport.turns.length} turns, load units: ${turns} traced / unsampled), ${tracedReport.spansPerPost} spans per post |`,
    );
    console.log(
      `| question post, tracing on, nothing sampled | | | | +3% CPU | ` +
        `${tracedReport.unsampledCpuChange <= 0.03 ? 'yes' : 'NO'} | CPU per post ${signed(tracedReport.unsampledCpuChange)} (median) |`,
    );
    for (const [kind, change] of Object.entries(tracedReport.changeByProcess))
      console.log(
        `${kind} - untraced, us per post: ` +
          Object.entries(change)
            .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
            .map(([name, us]) => `${name} ${us >= 0 ? '+' : ''}${us}`)
            .join(', '),
      );
  }
  if (standaloneReport) {
    const { firstStartMs, restartMs, rssMbAfterWorkload } = standaloneReport;
    console.log(
      `| standalone first start (npm start, new data folder) | | ${firstStartMs} ms | | < 4,000 ms | ${firstStartMs < 4000 ? 'yes' : 'NO'} | restart ${restartMs} ms |`,
    );
    console.log(
      `| standalone resident memory after a workload | | | | < 500 MB | ${rssMbAfterWorkload < 500 ? 'yes' : 'NO'} | ${rssMbAfterWorkload} MB |`,
    );
  }
  // What the webhooks service costs a write that no subscription takes: its share of the CPU all
  // apps and servers spent per request (the load generator aside).
  for (const [name, report] of rows.filter(([, report]) => report.method !== 'GET')) {
    const spent = Object.entries(report.cpuMicrosecondsPerRequest).filter(
      ([label]) => label !== 'load generator',
    );
    const total = spent.reduce((sum, [, us]) => sum + us, 0);
    const webhooks = report.cpuMicrosecondsPerRequest.webhooks ?? 0;
    const share = total > 0 ? (100 * webhooks) / total : 0;
    console.log(
      `| webhooks' share of a ${name} | | | ${share.toFixed(1)}% of ${total} us | <= 2% | ${share <= 2 ? 'yes' : 'NO'} | webhooks ${webhooks} |`,
    );
  }
  for (const [, report] of rows) {
    if (report.non2xx > 0 || report.errors > 0)
      console.log(`WARNING (${report.scenario}): ${report.non2xx} non-2xx, ${report.errors} errors`);
  }
} finally {
  await system.stop();
}

// The same two writes done in one process (../shared/perf/reference.mjs), on the same PostgreSQL
// and Redis once the apps have stopped, driven by the same load generator with the same shape of
// load: each write's CPU per request against it, raw and in units of the load generator's own CPU
// per request in each run (this VM's speed moves by a third between runs; the load generator, the
// same pre-signed requests through the same autocannon, moves with it).
if (paidReport || questionReport) {
  const reference = await runReference();
  if (reference) printAgainstReference(reference);
}

/** "+1.2%" */
function signed(share) {
  return `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)}%`;
}

/**
 * An OTLP/HTTP collector that counts the spans of each export and drops them: a tracing backend
 * whose own cost stays out of the measurement (it parses nothing: it counts `"startTimeUnixNano"`,
 * one per span).
 */
async function startDiscardingCollector() {
  const { createServer } = await import('node:http');
  let spans = 0;
  const server = createServer((request, response) => {
    let tail = '';
    request.on('data', (chunk) => {
      const text = tail + chunk.toString('latin1');
      spans += text.split('"startTimeUnixNano"').length - 1;
      tail = text.slice(-18);
    });
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    spans: () => spans,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Runs the reference (BENCH_REFERENCE, else ../shared/perf/reference.mjs from the project root)
 * with this run's buyers, askers and connections; its JSON summary, or undefined (said why) when
 * the file is absent or the run failed.
 */
async function runReference() {
  const file = resolve(ROOT, process.env.BENCH_REFERENCE ?? '../shared/perf/reference.mjs');
  if (!existsSync(file)) {
    console.log(`\nreference: ${file} is absent; the rows against it are skipped`);
    return undefined;
  }
  const which = paidReport && questionReport ? 'all' : paidReport ? 'paid' : 'question';
  console.error(`reference: node ${file} ${which}`);
  return new Promise((done) => {
    const child = spawn(process.execPath, [file, which], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: process.env.DATABASE_URL ?? system.env.DATABASE_URL.replace(/\/[^/]*$/, '/postgres'),
        REDIS_URL: system.env.REDIS_URL,
        REF_BUYERS: String(Number(process.env.BENCH_BUYERS ?? 3000)),
        REF_ASKERS: String(Number(process.env.BENCH_ASKERS ?? 1200)),
        REF_CONNECTIONS: String(CONNECTIONS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`exited ${code}`);
        done(JSON.parse(out.trim().split('\n').at(-1)));
      } catch (error) {
        console.log(`\nreference: the run failed (${error.message}); the rows against it are skipped`);
        done(undefined);
      }
    });
  });
}

/** A write's CPU per request (the load generator left out), raw and in load units, against the reference's. */
function printAgainstReference(reference) {
  console.log(
    `\nagainst the same work in one process (reference.mjs; verify ${reference.verifyPerSecond}/s in its run)\n`,
  );
  console.log(
    '| write | Townhall, CPU per request | in load units | reference, CPU per request | in load units | x reference | target | met |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, report, ref, target] of [
    ['paid RSVP, one event', paidReport, reference.paid, 2],
    ['question post, one live event', questionReport, reference.question, 1.5],
  ]) {
    if (!report || !ref) continue;
    const { ['load generator']: load, ...apps } = report.cpuMicrosecondsPerRequest;
    const townhall = Object.values(apps).reduce((sum, us) => sum + us, 0);
    const townhallUnits = townhall / load;
    const refUs = ref.cpuUsPerRequest.reference + ref.cpuUsPerRequest['postgres+redis+nats'];
    const times = townhallUnits / ref.cpuInLoadUnits;
    report.reference = {
      cpuUs: refUs,
      loadUnits: ref.cpuInLoadUnits,
      townhallLoadUnits: Number(townhallUnits.toFixed(2)),
      xReference: Number(times.toFixed(2)),
    };
    console.log(
      `| ${name} | ${townhall} us | ${townhallUnits.toFixed(1)} | ${refUs} us (process ${ref.cpuUsPerRequest.reference}, servers ${ref.cpuUsPerRequest['postgres+redis+nats']}) | ` +
        `${ref.cpuInLoadUnits} | ${times.toFixed(2)}x | <= ${target}x | ${times <= target ? 'yes' : 'NO'} |`,
    );
  }
}

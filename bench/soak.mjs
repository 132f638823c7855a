// `npm run soak`: the distributed topology under 20 minutes (SOAK_MINUTES) of mixed traffic at
// half of what it can take, to see memory and latency stay flat. The mix: public reads of an
// event's questions, signed reads of a directory card, question posts, upvotes and paid RSVPs by
// new agents (faucet, 402, payment). Capacity is measured first (SOAK_CALIBRATE_SECONDS of the
// same mix from 64 closed-loop workers); the soak then sends half of it (or SOAK_RATE operations
// per second) open-loop, so a slow server cannot slow the load down. Each minute it prints the
// operations, failures, p50/p99 and where each process's memory is; at the end, whether live
// memory and p99 stayed flat from the early minutes to the last ones. Not part of CI.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { observeLiveHeap } from '@townhall/platform';
import { AgentClient, generateAgentKey, TownhallError } from '@townhall/sdk';
import { Registry } from 'prom-client';
import { benchSystem, rssOf } from './system.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 20);
const MINUTE_MS = Number(process.env.SOAK_MINUTE_MS ?? 60_000);
const CALIBRATE_SECONDS = Number(process.env.SOAK_CALIBRATE_SECONDS ?? 20);
const PORT = Number(process.env.SOAK_PORT ?? 3970);
const ASKERS = 200;
// SOAK_HEAP_SNAPSHOTS=ticketing,events: those apps write a V8 heap snapshot after minute 2 and
// after the last minute (into a directory under /tmp the run prints), to compare what is retained.
// Writing one leaves about 100 MB with malloc in that process: such a run is for the snapshots,
// not for the verdict on memory.
const SNAPSHOT_APPS = new Set((process.env.SOAK_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean));
const snapshotDir = SNAPSHOT_APPS.size > 0 ? mkdtempSync(join(tmpdir(), 'townhall-soak-heap-')) : undefined;
const MAX_IN_FLIGHT = 5_000;

const system = await benchSystem({
  port: PORT,
  name: 'soak',
  // Twenty minutes of upvotes on a few hot questions: without vacuum (this machine's shared
  // PostgreSQL has autovacuum off) their dead row versions alone would wear the run down.
  privatePostgres: true,
  // Questions per agent per minute are not what a soak is about: 200 askers post for 20 minutes.
  env: { QUESTIONS_PER_MINUTE: '1000000', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' },
});
const { audience } = system;
const client = (key = generateAgentKey()) => new AgentClient({ baseUrl: audience, key });

/** The latencies (ms) and failures of one window, by kind of operation. */
class Window {
  latencies = new Map();
  failures = new Map();
  shed = 0;

  record(kind, ms, failure) {
    if (failure) this.failures.set(failure, (this.failures.get(failure) ?? 0) + 1);
    else (this.latencies.get(kind) ?? this.latencies.set(kind, []).get(kind)).push(ms);
  }

  get ok() {
    return [...this.latencies.values()].reduce((sum, list) => sum + list.length, 0);
  }

  quantile(q, kind) {
    const all = (kind ? (this.latencies.get(kind) ?? []) : [...this.latencies.values()].flat()).sort(
      (a, b) => a - b,
    );
    return all.length === 0 ? null : all[Math.min(all.length - 1, Math.floor(q * all.length))];
  }
}

console.log(`Townhall soak on ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
await system.prepare();
const children = await system.start((app) =>
  SNAPSHOT_APPS.has(app) ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : [],
);
if (snapshotDir) console.log(`heap snapshots of ${[...SNAPSHOT_APPS].join(', ')} go to ${snapshotDir}`);
const snapshot = () => {
  for (const entry of children) if (SNAPSHOT_APPS.has(entry.name)) entry.child.kill('SIGUSR2');
};
/** The load's own live heap, measured as the apps measure theirs. */
const ownLiveHeap = observeLiveHeap(new Registry());

/**
 * Where each Node process's memory is, sampled every 5 s (an app's Prometheus /metrics, the load's
 * own process.memoryUsage(), and /proc). Per minute: resident memory (its peak), V8's live heap
 * (townhall_heap_live_bytes: in use after the last full collection; its least), V8's committed
 * heap (its peak), and the resident part of malloc's main arena (its least: `[heap]` in /proc/<pid>/smaps, where buffers,
 * OpenSSL's keys and the rest of what native code allocates live). A leak raises the live heap or
 * the arena; V8 alone decides how far its committed heap runs ahead of the live one between
 * collections, so resident peaks move in steps of its choosing.
 */
class MemorySampler {
  #minute = new Map();
  #timer;

  /** `processes`: [name, pid] of each Node process; 'load' is this one. */
  constructor(processes) {
    this.processes = processes;
    this.#timer = setInterval(() => void this.#sample(), 5_000);
  }

  async #sample() {
    await Promise.all(
      this.processes.map(async ([name, pid]) => {
        try {
          if (name === 'load') {
            const own = process.memoryUsage();
            const live = (await ownLiveHeap.get()).values[0].value;
            return this.#note(name, live, own.heapTotal, own.rss, mallocArenaBytes(pid));
          }
          const text = await (await fetch(`http://127.0.0.1:${system.probes[name]}/metrics`)).text();
          const bytes = (metric) => Number(new RegExp(`^${metric} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
          this.#note(
            name,
            bytes('townhall_heap_live_bytes'),
            bytes('nodejs_heap_size_total_bytes'),
            bytes('process_resident_memory_bytes'),
            mallocArenaBytes(pid),
          );
        } catch {
          // A sample missed while the process is busy is no loss: the next one comes in 5 s.
        }
      }),
    );
  }

  #note(name, live, committed, resident, arena) {
    const mb = (bytes) => bytes / 1_048_576;
    const seen = this.#minute.get(name) ?? { rss: 0, live: Infinity, committed: 0, native: Infinity };
    this.#minute.set(name, {
      rss: Math.max(seen.rss, mb(resident)),
      live: Math.min(seen.live, mb(live)),
      committed: Math.max(seen.committed, mb(committed)),
      native: Math.min(seen.native, mb(arena)),
    });
  }

  /** This minute's figures by process name (then a new minute starts). */
  take() {
    const minute = this.#minute;
    this.#minute = new Map();
    return minute;
  }

  stop() {
    clearInterval(this.#timer);
  }
}

/** Resident bytes of a process's malloc main arena (`[heap]` in /proc/<pid>/smaps). */
function mallocArenaBytes(pid) {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.indexOf('[heap]');
  if (at < 0) return 0;
  return Number(/^Rss:\s+(\d+) kB$/m.exec(smaps.slice(at))?.[1] ?? NaN) * 1024;
}
let exitCode = 0;
try {
  // The stage: a paid event with a large hall, 200 askers holding tickets, a card to read.
  const host = client();
  const startsAt = new Date(Date.now() + 86_400_000);
  const event = await host.events.create({
    title: 'Soak',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
    timezone: 'UTC',
    capacity: 1_000_000,
    ticketing: { mode: 'single', price: '100', asset: 'USDC' },
  });
  await host.directory.putMe({ handle: `soak_${randomBytes(3).toString('hex')}`, displayName: 'Soak host' });
  const askers = [];
  for (let index = 0; index < ASKERS; index += 50) {
    askers.push(
      ...(await Promise.all(
        Array.from({ length: 50 }, async () => {
          const asker = client();
          await asker.ledger.faucet('1000');
          await asker.tickets.rsvp(event.id, { maxPrice: '100' });
          return asker;
        }),
      )),
    );
  }
  /** Recent questions with their authors: what upvotes choose from. */
  const questions = [];
  const pick = (list) => list[Math.floor(Math.random() * list.length)];

  const MIX = [
    [
      'public read',
      40,
      async () => {
        const response = await fetch(`${audience}/events/${event.id}/questions`);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
      },
    ],
    ['signed read', 25, () => pick(askers).directory.get(host.agentId)],
    [
      'question',
      15,
      async () => {
        const asker = pick(askers);
        const question = await asker.questions.submit(
          event.id,
          `Soak question ${randomBytes(4).toString('hex')}`,
        );
        questions.push({ id: question.id, author: asker.agentId });
        if (questions.length > 1_000) questions.shift();
      },
    ],
    [
      'upvote',
      10,
      async () => {
        const voter = pick(askers);
        const question = pick(questions.filter((item) => item.author !== voter.agentId).slice(-50));
        if (question) await voter.questions.upvote(event.id, question.id);
      },
    ],
    [
      'paid rsvp',
      10,
      async () => {
        const buyer = client();
        await buyer.ledger.faucet('1000');
        await buyer.tickets.rsvp(event.id, { maxPrice: '100' });
      },
    ],
  ];
  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);
  const chooseKind = () => {
    let roll = Math.random() * total;
    for (const entry of MIX) if ((roll -= entry[1]) < 0) return entry;
    return MIX[0];
  };

  let window = new Window();
  let inFlight = 0;
  const operate = async () => {
    if (inFlight >= MAX_IN_FLIGHT) {
      window.shed += 1;
      return;
    }
    const [kind, , run] = chooseKind();
    const into = window;
    inFlight += 1;
    const started = performance.now();
    try {
      await run();
      into.record(kind, performance.now() - started);
    } catch (error) {
      into.record(
        kind,
        0,
        error instanceof TownhallError ? `${kind}: ${error.code}` : `${kind}: ${error.message}`,
      );
    } finally {
      inFlight -= 1;
    }
  };

  // Capacity: the mix from 64 closed-loop workers.
  const calibrateUntil = Date.now() + CALIBRATE_SECONDS * 1_000;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < calibrateUntil) await operate();
    }),
  );
  const capacity = window.ok / CALIBRATE_SECONDS;
  const rate = Number(process.env.SOAK_RATE ?? Math.max(1, Math.round(capacity / 2)));
  console.log(
    `capacity of the mix: ${Math.round(capacity)} operations/s (p99 ${Math.round(window.quantile(0.99))} ms); ` +
      `soaking at ${rate}/s for ${MINUTES} min`,
  );

  // The soak: open loop, `rate` operations per second spread over 20 ms ticks. Memory is watched
  // in every Node process (each app and the load) and, by its resident size, in nats-server.
  const nodeProcesses = [...children.map((entry) => entry.name), 'load'];
  const memory = new MemorySampler([
    ...children.map((entry) => [entry.name, entry.child.pid]),
    ['load', process.pid],
  ]);
  const natsPid = system.nats?.pid;
  console.log(
    `| minute | ops | ok | failed | shed | p50 ms | p99 ms | p99 by kind (ms) | ${nodeProcesses.join(' | ')} |${natsPid ? ' nats-server |' : ''}`,
  );
  console.log(
    `|---|---|---|---|---|---|---|---|${nodeProcesses.map(() => '---|').join('')}${natsPid ? '---|' : ''}`,
  );
  console.log(
    "(each Node process, MB: resident peak (V8's live heap / V8's committed heap / malloc's main arena))",
  );
  const minutes = [];
  let owed = 0;
  const ticker = setInterval(() => {
    owed += rate / 50;
    for (; owed >= 1; owed -= 1) void operate();
  }, 20);
  for (let minute = 1; minute <= MINUTES; minute++) {
    window = new Window();
    await new Promise((resolve) => setTimeout(resolve, MINUTE_MS));
    const done = window;
    const byProcess = memory.take();
    const natsMb = natsPid ? rssOf(natsPid).rssMb : undefined;
    if (minute === 2 || minute === MINUTES) snapshot();
    const failed = [...done.failures.values()].reduce((sum, count) => sum + count, 0);
    const byKind = MIX.map(([kind]) => `${kind} ${Math.round(done.quantile(0.99, kind) ?? 0)}`).join(', ');
    minutes.push({ p99: done.quantile(0.99), byProcess, natsMb });
    const cell = (name) => {
      const m = byProcess.get(name);
      return m
        ? `${m.rss.toFixed(0)} (${m.live.toFixed(0)}/${m.committed.toFixed(0)}/${m.native.toFixed(0)})`
        : '-';
    };
    console.log(
      `| ${minute} | ${done.ok + failed} | ${done.ok} | ${failed} | ${done.shed} | ${Math.round(done.quantile(0.5) ?? 0)} | ` +
        `${Math.round(done.quantile(0.99) ?? 0)} | ${byKind} | ${nodeProcesses.map(cell).join(' | ')} |` +
        `${natsMb === undefined ? '' : ` ${natsMb.toFixed(0)} |`}`,
    );
    if (failed > 0)
      console.log(`  failures: ${[...done.failures].map(([what, n]) => `${what} x${n}`).join(', ')}`);
  }
  clearInterval(ticker);
  memory.stop();
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));

  // Flat: the last minutes against the early ones, after the first (warm-up). No leak: in every
  // Node process the live V8 heap grows less than 15% (or 10 MB) and malloc's main arena less
  // than 15% (or 20 MB); nats-server's resident memory less than 15% (or 20 MB). Each is the
  // least seen in the window (five minutes of 5 s samples), so that one minute's transient (a
  // burst's buffers kept until the next full collection) is not taken for growth.
  // Resident peaks are printed, not judged: V8 lets its heap run to a few times the live size
  // between collections, more after a busy spell, and keeps the pages a while (bounded by its
  // heap limit, e.g. a container's memory). And the median p99 of the last five minutes is
  // within twice that of minutes 2 to 6.
  if (minutes.length >= 4) {
    const span = Math.min(5, Math.floor((minutes.length - 1) / 2));
    const early = minutes.slice(1, 1 + span);
    const late = minutes.slice(-span);
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const grew = (pick, floorMb) => {
      const least = (window) => Math.min(...window.map(pick));
      const [before, after] = [least(early), least(late)];
      return { before, after, flat: after - before < Math.max(floorMb, 0.15 * before) };
    };
    const checks = [
      ...nodeProcesses.flatMap((name) => [
        { name, what: 'V8 live', ...grew((minute) => minute.byProcess.get(name)?.live ?? NaN, 10) },
        { name, what: 'malloc arena', ...grew((minute) => minute.byProcess.get(name)?.native ?? NaN, 20) },
      ]),
      ...(natsPid ? [{ name: 'nats-server', what: 'resident', ...grew((minute) => minute.natsMb, 20) }] : []),
    ];
    const peaks = nodeProcesses.map((name) => {
      const peak = (window) => Math.max(...window.map((minute) => minute.byProcess.get(name)?.rss ?? 0));
      const change = peak(late) - peak(early);
      return `${name} ${change >= 0 ? '+' : ''}${change.toFixed(0)}`;
    });
    const p99 = {
      early: median(early.map((minute) => minute.p99)),
      late: median(late.map((minute) => minute.p99)),
    };
    const p99Flat = p99.late <= Math.max(2 * p99.early, p99.early + 20);
    const from = `minutes 2-${1 + span} to ${minutes.length - span + 1}-${minutes.length}`;
    const signed = (mb) => `${mb >= 0 ? '+' : ''}${mb.toFixed(0)}`;
    console.log(`\nmemory, least of ${from} (MB):`);
    for (const check of checks)
      console.log(
        `  ${check.name} ${check.what}: ${check.before.toFixed(0)} -> ${check.after.toFixed(0)} (${signed(check.after - check.before)})${check.flat ? '' : '  NOT FLAT'}`,
      );
    console.log(`resident peaks, ${from} (not judged): ${peaks.join(', ')} MB`);
    console.log(`median p99, ${from}: ${Math.round(p99.early)} ms -> ${Math.round(p99.late)} ms`);
    const flat = checks.every((check) => check.flat) && p99Flat;
    console.log(flat ? 'flat: yes' : 'flat: NO');
    if (!flat) exitCode = 1;
  }
} finally {
  await system.stop();
}
process.exit(exitCode);

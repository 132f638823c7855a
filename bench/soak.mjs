// `npm run soak`: the distributed topology under 20 minutes (SOAK_MINUTES) of mixed traffic at
// half of what it can take, to see memory and latency stay flat. The mix: public reads of an
// event's questions, signed reads of a directory card, question posts, upvotes and paid RSVPs by
// new agents (faucet, 402, payment). Capacity is measured first (SOAK_CALIBRATE_SECONDS of the
// same mix from 64 closed-loop workers); the soak then sends half of it (or SOAK_RATE operations
// per second) open-loop, so a slow server cannot slow the load down. Each minute it prints the
// operations, failures, p50/p99 and the resident memory of every process; at the end, whether
// memory and p99 stayed flat from the early minutes to the last ones. Not part of CI.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { AgentClient, generateAgentKey, TownhallError } from '@townhall/sdk';
import { benchSystem, rssOf } from './system.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 20);
const MINUTE_MS = Number(process.env.SOAK_MINUTE_MS ?? 60_000);
const CALIBRATE_SECONDS = Number(process.env.SOAK_CALIBRATE_SECONDS ?? 20);
const PORT = Number(process.env.SOAK_PORT ?? 3970);
const ASKERS = 200;
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
const children = await system.start();
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

  // The soak: open loop, `rate` operations per second spread over 20 ms ticks.
  const labels = [
    ...children.map((entry) => [entry.name, entry.child.pid]),
    ...(system.nats?.pid ? [['nats-server', system.nats.pid]] : []),
    ['load', process.pid],
  ];
  console.log(
    `| minute | ops | ok | failed | shed | p50 ms | p99 ms | p99 by kind (ms) | ${labels.map(([name]) => `${name} MB`).join(' | ')} |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|${labels.map(() => '---|').join('')}`);
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
    const rss = labels.map(([, pid]) => rssOf(pid).rssMb);
    const failed = [...done.failures.values()].reduce((sum, count) => sum + count, 0);
    const byKind = MIX.map(([kind]) => `${kind} ${Math.round(done.quantile(0.99, kind) ?? 0)}`).join(', ');
    minutes.push({ p99: done.quantile(0.99), rss, failures: done.failures });
    console.log(
      `| ${minute} | ${done.ok + failed} | ${done.ok} | ${failed} | ${done.shed} | ${Math.round(done.quantile(0.5) ?? 0)} | ` +
        `${Math.round(done.quantile(0.99) ?? 0)} | ${byKind} | ${rss.map((mb) => mb.toFixed(0)).join(' | ')} |`,
    );
    if (failed > 0)
      console.log(`  failures: ${[...done.failures].map(([what, n]) => `${what} x${n}`).join(', ')}`);
  }
  clearInterval(ticker);
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));

  // Flat: the last minutes against the early ones, after the first (warm-up). Peaks, not single
  // readings, since a collection can drop a process's memory for a minute: in every process the
  // peak of the last five minutes is less than 15% (or 20 MB) above the peak of minutes 2 to 6,
  // and the median p99 of the last five minutes is within twice that of minutes 2 to 6.
  if (minutes.length >= 4) {
    const span = Math.min(5, Math.floor((minutes.length - 1) / 2));
    const early = minutes.slice(1, 1 + span);
    const late = minutes.slice(-span);
    const peak = (window, index) => Math.max(...window.map((minute) => minute.rss[index]));
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const growth = labels.map(([name], index) => {
      const grew = peak(late, index) - peak(early, index);
      return { name, grew, flat: grew < Math.max(20, peak(early, index) * 0.15) };
    });
    const p99 = {
      early: median(early.map((minute) => minute.p99)),
      late: median(late.map((minute) => minute.p99)),
    };
    const p99Flat = p99.late <= Math.max(2 * p99.early, p99.early + 20);
    const from = `minutes 2-${1 + span} to ${minutes.length - span + 1}-${minutes.length}`;
    console.log(
      `\npeak memory, ${from}: ${growth.map(({ name, grew }) => `${name} ${grew >= 0 ? '+' : ''}${grew.toFixed(0)} MB`).join(', ')}`,
    );
    console.log(`median p99, ${from}: ${Math.round(p99.early)} ms -> ${Math.round(p99.late)} ms`);
    const flat = growth.every((item) => item.flat) && p99Flat;
    console.log(flat ? 'flat: yes' : 'flat: NO');
    if (!flat) exitCode = 1;
  }
} finally {
  await system.stop();
}
process.exit(exitCode);

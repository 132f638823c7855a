// The distributed topology for `npm run bench` and `npm run soak`: a database and (unless
// BENCH_SHARED_NATS=1) a nats-server of the run's own, every service and the gateway as separate
// processes, each ready before the run starts. `stop()` ends them all and drops the database.
// `privatePostgres`: a PostgreSQL cluster of the run's own too (initdb defaults, autovacuum on),
// for a run long enough that vacuum matters: this machine's shared server runs without it.
import { createWriteStream, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { childrenOf, PrivateNatsServer, PrivatePostgresServer } from '@townhall/testing';
import {
  GATEWAY,
  SERVICES,
  LOCAL_DEFAULTS,
  MACHINE_NATS_URL,
  ensureDatabase,
  launch,
  migrateAll,
  waitUntilReady,
} from '../tools/launcher.mjs';

/**
 * The system's environment (limits high enough that a few agents driving the load are never
 * throttled, while every limiter still runs) and its lifecycle. `prepare()` creates the database
 * and migrates; `start(nodeArgs)` launches the apps and waits for them.
 */
export async function benchSystem({ port, name, env: extra = {}, privatePostgres = false }) {
  const audience = `http://127.0.0.1:${port}`;
  const database = `townhall_${name}_${randomBytes(4).toString('hex')}`;
  const postgres = privatePostgres ? await PrivatePostgresServer.start() : undefined;
  const databaseUrl = new URL(postgres?.adminUrl ?? process.env.DATABASE_URL ?? LOCAL_DEFAULTS.DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  // Durable consumers then start empty instead of catching up on whatever earlier runs left.
  const nats = process.env.BENCH_SHARED_NATS ? undefined : await PrivateNatsServer.start();
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl.toString(),
    NATS_URL: nats?.url ?? process.env.NATS_URL ?? MACHINE_NATS_URL,
    // Its own nats-server has the apps' authorization: the launcher gives each app its user.
    ...nats?.users?.serverEnv(),
    REDIS_URL: process.env.REDIS_URL ?? LOCAL_DEFAULTS.REDIS_URL,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: audience,
    LEDGER_FAUCET: 'true',
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    RATE_LIMIT_WRITE_BURST: '1000000',
    RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '1000000',
    ...extra,
  };
  const probes = Object.fromEntries([...SERVICES, GATEWAY].map((app, i) => [app, port + 1 + i]));
  let launched;
  let stopping;
  const stopAll = async () => {
    await launched?.stop();
    await nats?.destroy();
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: new URL('/postgres', env.DATABASE_URL).toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    await postgres?.destroy();
  };
  // A SIGINT or SIGTERM to the run's process alone (not Ctrl-C, which reaches the whole process
  // group) would otherwise end it and leave the apps, NATS and a private Postgres running.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the apps`);
      void (stopping ??= stopAll()).finally(() => process.exit(code));
    });
  return {
    audience,
    env,
    nats,
    /** Each app's probe port (/healthz, /readyz, Prometheus /metrics), by name. */
    probes,
    async prepare() {
      await ensureDatabase(env.DATABASE_URL);
      await migrateAll(env, { quiet: true });
    },
    /** Launches every app (`nodeArgs(name)` adds flags, e.g. a profiler) and waits until each is ready. */
    async start(nodeArgs = () => []) {
      launched = launch(
        [
          ...SERVICES.map((service) => ({
            name: service,
            env: { PROBE_PORT: String(probes[service]) },
            nodeArgs: nodeArgs(service),
          })),
          { name: GATEWAY, env: { PROBE_PORT: String(probes[GATEWAY]) }, nodeArgs: nodeArgs(GATEWAY) },
        ],
        env,
        // BENCH_LOG=file keeps the apps' logs (a crash's last words); by default they are dropped.
        { output: process.env.BENCH_LOG ? createWriteStream(process.env.BENCH_LOG) : null },
      );
      for (const probe of Object.values(probes)) await waitUntilReady(`http://127.0.0.1:${probe}/readyz`);
      await waitUntilReady(`${audience}/readyz`);
      return launched.children;
    },
    /** Stops every app and launches them again with `extra` added to their environment (same database and NATS). */
    async restart(extra, nodeArgs = () => []) {
      await launched?.stop();
      Object.assign(env, extra);
      return this.start(nodeArgs);
    },
    stop() {
      return (stopping ??= stopAll());
    },
  };
}

/** Resident memory of a process and its children (a gateway's workers) now and at their peaks, in MB. */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return childrenOf(pid)
    .map(rssOf)
    .reduce((sum, child) => ({ rssMb: sum.rssMb + child.rssMb, peakMb: sum.peakMb + child.peakMb }), {
      rssMb: kb('VmRSS') / 1024,
      peakMb: kb('VmHWM') / 1024,
    });
}

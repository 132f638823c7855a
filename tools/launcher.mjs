// Starts Townhall's apps as separate processes (distributed mode) from their build
// output, prefixes their log lines with the app's name, and stops them all together.
// Used by `npm run start:distributed`, `npm start` and the benchmark.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BUS_APPS } from '@townhall/contracts';
import { natsPasswordVariable } from '@townhall/platform';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** package.json "townhall" names the domain services (each owns a schema and a migrate command) and the gateway. */
const { services, gateway } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).townhall;
export const SERVICES = services;
export const GATEWAY = gateway;

/**
 * The servers of docs/development.md, for variables the operator did not set. NATS is not among
 * them: without NATS_URL, `npm run start:distributed` starts a nats-server of its own
 * (local-nats.mjs), since the apps' authorization is its configuration.
 */
export const LOCAL_DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/townhall',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

/** The machine's NATS (docs/development.md), without authorization: what the benchmark may share. */
export const MACHINE_NATS_URL = 'nats://127.0.0.1:4222';

/**
 * `app`'s environment from the launcher's: where it holds nats-server's password variables
 * (TOWNHALL_NATS_PASSWORD_<APP>, k8s/nats-authorization.conf), the app gets its own as NATS_USER
 * and NATS_PASSWORD, and none of the others' passwords.
 */
export function appEnv(app, env) {
  const passwords = new Set(BUS_APPS.map(natsPasswordVariable));
  const rest = Object.fromEntries(Object.entries(env).filter(([name]) => !passwords.has(name)));
  const own = env[natsPasswordVariable(app)];
  return own === undefined ? rest : { ...rest, NATS_USER: app, NATS_PASSWORD: own };
}

const COLORS = [36, 33, 35, 32, 34, 31];

/** Creates the database named in the URL if it does not exist yet; true if it created it. */
export async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  // A server that drops packets would otherwise leave the command waiting forever.
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    } catch (error) {
      // Another launcher (a second replica) created it at the same moment: 42P04, or the
      // catalog's unique index when both inserted at once.
      if (error?.code === '42P04' || error?.code === '23505') return false;
      throw error;
    }
    return true;
  } finally {
    await client.end();
  }
}

/**
 * Runs every service's explicit migrate command, one after the other. Returns the names of the
 * migrations and functions each applied, by service (each service owns the schema of its name),
 * read from the command's result line: `{"applied": [...]}` at level info (undefined for a
 * service whose LOG_LEVEL hid it). quiet hides the commands' stdout unless one fails; their stderr always shows.
 */
export async function migrateAll(env, { quiet = false } = {}) {
  const applied = {};
  for (const service of SERVICES) {
    const child = spawn(process.execPath, [`apps/${service}/dist/migrate.js`], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (quiet) lines.push(line);
      else process.stdout.write(`${line}\n`);
      const names = resultOf(line);
      if (names) applied[service] = names;
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    if (code !== 0) {
      for (const line of lines) process.stderr.write(`${line}\n`);
      throw new Error(`migrations of ${service} failed (exit ${code})`);
    }
  }
  return applied;
}

/** The `applied` list of a migrate command's log line, if the line is that one. */
function resultOf(line) {
  try {
    const entry = JSON.parse(line);
    return Array.isArray(entry?.applied) ? entry.applied : undefined;
  } catch {
    return undefined;
  }
}

/** The first restart's delay; it doubles per crash up to RESTART_MAX_MS, as Kubernetes' CrashLoopBackOff does. */
export const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** An app that ran this long before it died starts its backoff again from RESTART_FIRST_MS. */
const RESTART_RESET_AFTER_MS = 60_000;

/**
 * Spawns each app with its own environment overrides. Returns the children (each `child` is the
 * app's current process) and a stop() that sends SIGTERM to every one (SIGKILL after the grace
 * period) and waits for all.
 *
 * With `restart`, an app that exits on its own is started again while the others keep serving,
 * after a backoff (RESTART_FIRST_MS, doubling to RESTART_MAX_MS; back to the first delay once it
 * has run RESTART_RESET_AFTER_MS), with one log line for the exit and one for the new pid.
 * Without it, `exited` of each child resolves when its (only) process exits.
 */
export function launch(
  apps,
  baseEnv,
  { output = process.stdout, restart = false, log = console.error } = {},
) {
  const width = Math.max(...apps.map((app) => app.name.length));
  let stopping;
  let stopRequested = false;
  let wakeOnStop;
  const stopRequest = new Promise((resolve) => (wakeOnStop = resolve));
  const children = apps.map((app, index) => {
    const label = `\x1b[${COLORS[index % COLORS.length]}m${app.name.padEnd(width)}\x1b[0m | `;
    const spawnApp = () => {
      const child = spawn(process.execPath, [...(app.nodeArgs ?? []), `apps/${app.name}/dist/main.js`], {
        cwd: ROOT,
        env: { ...appEnv(app.name, baseEnv), ...app.env },
        // output: null sends logs to /dev/null (the benchmark), else each line gets the app's name.
        stdio: ['ignore', output ? 'pipe' : 'ignore', output ? 'pipe' : 'ignore'],
      });
      if (output) {
        for (const stream of [child.stdout, child.stderr]) {
          createInterface({ input: stream }).on('line', (line) => output.write(`${label}${line}\n`));
        }
      }
      return child;
    };
    const entry = { name: app.name, child: spawnApp(), restarts: 0 };
    const exitOf = (child) =>
      new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    if (!restart) {
      entry.exited = exitOf(entry.child);
      return entry;
    }
    // Supervised: `exited` resolves only once the app is stopped for good (by stop()).
    entry.exited = (async () => {
      let delay = RESTART_FIRST_MS;
      for (;;) {
        const startedAt = Date.now();
        const { code, signal } = await exitOf(entry.child);
        if (stopRequested) return { code, signal };
        if (Date.now() - startedAt >= RESTART_RESET_AFTER_MS) delay = RESTART_FIRST_MS;
        entry.restarts += 1;
        log(
          `${app.name} exited (${signal ?? code}); restarting it in ${delay} ms (restart ${entry.restarts})`,
        );
        let timer;
        await Promise.race([stopRequest, new Promise((resolve) => (timer = setTimeout(resolve, delay)))]);
        clearTimeout(timer);
        if (stopRequested) return { code, signal };
        delay = Math.min(delay * 2, RESTART_MAX_MS);
        entry.child = spawnApp();
        log(`${app.name} restarted (pid ${entry.child.pid})`);
      }
    })();
    return entry;
  });

  const stop = (graceMs = 15_000) => {
    stopRequested = true;
    wakeOnStop();
    return (stopping ??= Promise.all(
      children.map(async (entry) => {
        const { child } = entry;
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await entry.exited;
        clearTimeout(timer);
      }),
    ));
  };
  return { children, stop };
}

/** Resolves when url answers 200, or rejects after timeoutMs. */
export async function waitUntilReady(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

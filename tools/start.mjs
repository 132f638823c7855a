// `npm run start:distributed`: every app as its own process against PostgreSQL, NATS and
// Redis, with logs prefixed by app name. Ctrl-C stops them all. It uses the local servers of
// the README's Quick start for DATABASE_URL and REDIS_URL when not set; without NATS_URL it starts
// a nats-server of its own with the apps' authorization (local-nats.mjs: LOCAL_NATS_PORT, 4223).
// Each app connects to NATS as its own user: with NATS_URL, from TOWNHALL_NATS_PASSWORD_<APP>
// where set (the variables the authorization's nats-server reads). Each app gets its own
// operators' port (PROBE_PORT: /healthz, /readyz, /metrics), PROBE_PORT_BASE (9100) plus its
// place in the table printed at start. (`npm start` is standalone mode: apps/standalone, one
// process with embedded parts.)
import { createServer } from 'node:net';
import { GATEWAY, LOCAL_DEFAULTS, SERVICES, ensureDatabase, launch, migrateAll } from './launcher.mjs';
import { startLocalNats } from './local-nats.mjs';

const env = { ...process.env };
for (const [name, value] of Object.entries(LOCAL_DEFAULTS)) {
  if (!env[name]) {
    env[name] = value;
    console.log(`${name} not set: using ${value}`);
  }
}
env.PORT ??= '3000';
// Every app must name the same public origin: the gateway's audience, ticketing's x402 resources
// and the events service's calendar links (each app alone would default to port 3000).
env.PUBLIC_BASE_URL ??= `http://localhost:${env.PORT}`;
// The faucet stays off unless LEDGER_FAUCET=true is set: this is the production shape.

const names = [...SERVICES, GATEWAY];
const probeBase = Number(env.PROBE_PORT_BASE ?? '9100');
if (!Number.isInteger(probeBase) || probeBase < 1 || probeBase + names.length - 1 > 65535) {
  console.error(
    `PROBE_PORT_BASE must be a port from 1 to ${65536 - names.length}, not ${env.PROBE_PORT_BASE}`,
  );
  process.exit(2);
}
// One PROBE_PORT for every app would make all but one fail to listen.
if (env.PROBE_PORT) console.log(`PROBE_PORT is per app here: ignored (PROBE_PORT_BASE sets the first)`);
const apps = names.map((name, index) => ({ name, env: { PROBE_PORT: String(probeBase + index) } }));

// A port already taken would stop the whole system a few seconds in; say which one now.
const ports = [
  ...apps.map(({ name, env: own }) => ({ port: Number(own.PROBE_PORT), what: `${name}'s PROBE_PORT` })),
  { port: Number(env.PORT), what: `${GATEWAY}'s PORT` },
];
for (const { port, what } of ports) {
  if (port !== 0 && !(await isFree(port))) {
    console.error(`Port ${port} (${what}) is in use: stop what holds it, or set PORT / PROBE_PORT_BASE`);
    process.exit(1);
  }
}

try {
  await ensureDatabase(env.DATABASE_URL);
  await migrateAll(env);
} catch (error) {
  console.error(`Cannot prepare the database at ${env.DATABASE_URL}: ${error.message}`);
  process.exit(1);
}

let localNats;
if (!env.NATS_URL) {
  const port = Number(env.LOCAL_NATS_PORT ?? '4223');
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`LOCAL_NATS_PORT must be a port from 1 to 65535, not ${env.LOCAL_NATS_PORT}`);
    process.exit(2);
  }
  try {
    localNats = await startLocalNats({ dataDir: env.TOWNHALL_DATA_DIR ?? '.townhall', port });
  } catch (error) {
    console.error(`Cannot start NATS: ${error.message}`);
    process.exit(1);
  }
  Object.assign(env, { NATS_URL: localNats.url }, localNats.env);
}

// Supervised: an app that dies is started again (with backoff) while the others keep serving,
// as Kubernetes restarts a container; Ctrl-C or SIGTERM stops them all.
const { children, stop } = launch(apps, env, { restart: true });
console.log(
  `Townhall starting: gateway on http://localhost:${env.PORT} (audience ${env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`})`,
);
const width = Math.max(...names.map((name) => name.length));
console.log(
  [
    'Probes of each app: /healthz, /readyz and Prometheus /metrics',
    ...apps.map(({ name, env: own }) => `  ${name.padEnd(width)}  http://localhost:${own.PROBE_PORT}`),
  ].join('\n'),
);

let stopping = false;
const shutdown = async (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping ${children.map((c) => c.name).join(', ')}`);
  await stop();
  await localNats?.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

/** Whether nothing listens on the port, on the address the apps bind (every interface). */
function isFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

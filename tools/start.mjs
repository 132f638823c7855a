// `npm run start:distributed`: every app as its own process against PostgreSQL, NATS and
// Redis, with logs prefixed by app name. Ctrl-C stops them all. It uses the local servers of
// ENVIRONMENT.md for any of DATABASE_URL, NATS_URL, REDIS_URL not set. (`npm start` is
// standalone mode: apps/standalone, one process with embedded parts.)
import { GATEWAY, LOCAL_DEFAULTS, SERVICES, ensureDatabase, launch, migrateAll } from './launcher.mjs';

const env = { ...process.env };
for (const [name, value] of Object.entries(LOCAL_DEFAULTS)) {
  if (!env[name]) {
    env[name] = value;
    console.log(`${name} not set: using ${value}`);
  }
}
env.PORT ??= '3000';
// The faucet stays off unless LEDGER_FAUCET=true is set: this is the production shape.

try {
  await ensureDatabase(env.DATABASE_URL);
  await migrateAll(env);
} catch (error) {
  console.error(`Cannot prepare the database at ${env.DATABASE_URL}: ${error.message}`);
  process.exit(1);
}

const apps = [...SERVICES.map((name) => ({ name })), { name: GATEWAY }];
const { children, stop } = launch(apps, env);
console.log(
  `Townhall starting: gateway on http://localhost:${env.PORT} (audience ${env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`})`,
);

let stopping = false;
const shutdown = async (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping ${children.map((c) => c.name).join(', ')}`);
  await stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

// If one app dies on its own, stop the rest: a half-running system is worse than none.
for (const { name, exited } of children) {
  void exited.then(({ code, signal }) => {
    if (stopping) return;
    console.error(`${name} exited (${signal ?? code}); stopping the others`);
    void shutdown('exit').then(() => process.exit(1));
  });
}

// `npm start` and `npm run start:distributed`: every app as its own process against
// PostgreSQL, NATS and Redis, with logs prefixed by app name. Ctrl-C stops them all.
// Until standalone mode (embedded parts) exists, `npm start` is this too, and uses the
// local servers of ENVIRONMENT.md for any of DATABASE_URL, NATS_URL, REDIS_URL not set.
import { GATEWAY, LOCAL_DEFAULTS, SERVICES, ensureDatabase, launch, migrateAll } from './launcher.mjs';

const env = { ...process.env };
for (const [name, value] of Object.entries(LOCAL_DEFAULTS)) {
  if (!env[name]) {
    env[name] = value;
    console.log(`${name} not set: using ${value}`);
  }
}
env.PORT ??= '3000';
// `npm start` is for trying it out: the ledger faucet is on unless told otherwise (ARCHITECTURE.md).
if (!process.argv.includes('--distributed')) env.LEDGER_FAUCET ??= 'true';

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

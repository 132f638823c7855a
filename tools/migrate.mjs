// `npm run migrate`: the explicit migration command of distributed mode (apps never migrate at
// start). Creates the database if it is missing, then runs every service's own migrate command
// (apps/<service>/dist/migrate.js, the same one the Kubernetes Job runs) and prints what each
// applied to its schema: its pending migrations, then its SQL functions that changed (the
// repeatable step, `function <schema>.<name>`). DATABASE_URL names the database; unset, LOCAL_DEFAULTS in launcher.mjs
// (postgres://postgres@127.0.0.1:5432/townhall). Exits 0 once every schema is migrated, or 1 with
// a one-line reason when the database cannot be reached or a migration fails.
import { LOCAL_DEFAULTS, SERVICES, ensureDatabase, migrateAll } from './launcher.mjs';

const env = { ...process.env };
if (!env.DATABASE_URL) {
  env.DATABASE_URL = LOCAL_DEFAULTS.DATABASE_URL;
  console.log(`DATABASE_URL not set: using ${env.DATABASE_URL}`);
}
// Each command reports what it applied in one log line at level info; this prints a summary instead.
env.LOG_LEVEL = 'info';
const where = withoutPassword(env.DATABASE_URL);

let created;
try {
  created = await ensureDatabase(env.DATABASE_URL);
} catch (error) {
  const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN'].includes(
    error.code ?? error.errors?.[0]?.code,
  );
  console.error(
    unreachable || /timeout/i.test(error.message)
      ? `migrate: cannot reach PostgreSQL at ${where}: ${describe(error)}. Is it running? DATABASE_URL names the server.`
      : `migrate: cannot open or create the database at ${where}: ${describe(error)}`,
  );
  process.exit(1);
}
const database = decodeURIComponent(new URL(env.DATABASE_URL).pathname.slice(1));
console.log(`Database ${database} at ${where}${created ? ': created' : ''}`);

let applied;
try {
  applied = await migrateAll(env, { quiet: true });
} catch (error) {
  console.error(`migrate: ${error.message}; the schemas before it are migrated, the rest untouched`);
  process.exit(1);
}

const width = Math.max(...SERVICES.map((service) => service.length));
for (const service of SERVICES) {
  const names = applied[service];
  const label = `  schema ${service.padEnd(width)}`;
  if (names === undefined) console.log(`${label}  migrated (its command printed no list)`);
  else if (names.length === 0) console.log(`${label}  up to date`);
  else console.log(`${label}  applied ${names.length}: ${names.join(', ')}`);
}
const all = SERVICES.flatMap((service) => applied[service] ?? []);
const functions = all.filter((name) => /^(dropped )?function /.test(name)).length;
console.log(
  all.length === 0
    ? 'Nothing to apply: every schema is up to date.'
    : `Applied ${all.length - functions} migration(s).${functions ? ` Applied ${functions} function(s).` : ''}`,
);

function withoutPassword(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** pg's error for a host with several addresses is an AggregateError with an empty message. */
function describe(error) {
  return error.message || error.errors?.map((each) => each.message).join('; ') || String(error.code ?? error);
}

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { REPO_ROOT } from './app-process.js';

/** The real PostgreSQL of the machine (docs/development.md); tests get a database of their own. */
export const POSTGRES_ADMIN_URL =
  process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A database of its own on the machine's server, or on `adminUrl`'s (a PrivatePostgresServer's);
 * empty, or a copy of `template`.
 */
export async function createTestDatabase(
  prefix = 'townhall_test',
  adminUrl = POSTGRES_ADMIN_URL,
  template?: string,
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`, adminUrl);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, adminUrl),
  };
}

/** The two roles of k8s/postgres-roles.sql in one test database (see `withDatabaseRoles`). */
export interface DatabaseRoles {
  /** As the migration Jobs connect (Secret key database-migrate-url): owns the schemas. */
  migrateUrl: string;
  /** As the apps connect (Secret key database-url): rows only. */
  appUrl: string;
}

/**
 * Runs k8s/postgres-roles.sql on `database` with psql, as an operator would, for two roles of
 * its own; `drop()` then drops them too (after the database, which holds their grants).
 */
export async function withDatabaseRoles(database: TestDatabase): Promise<TestDatabase & DatabaseRoles> {
  const roles = { migrator: `${database.name}_migrator`, app: `${database.name}_app` };
  const password = () => randomBytes(12).toString('hex');
  await promisify(execFile)('psql', [
    database.url,
    ...['-v', 'ON_ERROR_STOP=1', '-q', '-f', join(REPO_ROOT, 'k8s/postgres-roles.sql')],
    ...['-v', `database=${database.name}`],
    ...['-v', `migrator_role=${roles.migrator}`, '-v', `migrator_password=${password()}`],
    ...['-v', `app_role=${roles.app}`, '-v', `app_password=${password()}`],
  ]);
  const as = (role: string) => {
    const url = new URL(database.url);
    url.username = role;
    return url.toString();
  };
  return {
    ...database,
    migrateUrl: as(roles.migrator),
    appUrl: as(roles.app),
    drop: async () => {
      await database.drop();
      await admin(`DROP ROLE IF EXISTS ${roles.migrator}, ${roles.app}`);
    },
  };
}

async function admin(sql: string, adminUrl = POSTGRES_ADMIN_URL): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// Templates older than this are dropped when a new one is made (a build of days ago).
const TEMPLATE_MAX_AGE_DAYS = 2;

/**
 * A database of its own with every service's schema migrated, copied (CREATE DATABASE ...
 * TEMPLATE) from a template that `migrate` made once for this build: the migrate commands cost
 * five Node processes and about five seconds, a copy a fraction of one. The template's name
 * carries a hash of every built file of the apps and libs (`dist/`), so a change to a migration,
 * to anything it imports, or to a function's SQL makes a new one; templates of other builds older
 * than two days are dropped. An advisory lock keeps two test runs from making the same template at
 * once, and it gets its final name only once migrated, so a half-made template is never copied.
 */
export async function createMigratedDatabase(
  migrate: (url: string) => Promise<unknown>,
  adminUrl = POSTGRES_ADMIN_URL,
): Promise<TestDatabase> {
  const template = await migratedTemplate(migrate, adminUrl);
  return createTestDatabase(undefined, adminUrl, template);
}

async function migratedTemplate(
  migrate: (url: string) => Promise<unknown>,
  adminUrl: string,
): Promise<string> {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  const name = `townhall_template_${day}_${buildHash().slice(0, 16)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = async (database: string) =>
      (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      if (await exists(name)) return name;
      const making = `${name}_making`;
      await client.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${making}`);
      const url = new URL(adminUrl);
      url.pathname = `/${making}`;
      await migrate(url.toString());
      await client.query(`ALTER DATABASE ${making} RENAME TO ${name}`);
      await dropStaleTemplates(client, day);
      return name;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    await client.end();
  }
}

async function dropStaleTemplates(client: pg.Client, today: string): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname ~ '^townhall_template_[0-9]{8}_'",
  );
  const oldest = Number(today) - TEMPLATE_MAX_AGE_DAYS; // yyyymmdd: about two days, month ends aside
  for (const { datname } of rows) {
    if (Number(datname.split('_')[2]) < oldest)
      await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

let hashOfThisBuild: string | undefined;

/** sha256 over every built file (JavaScript, SQL) of apps/*\/dist and libs/*\/dist, by path and content. */
function buildHash(): string {
  if (hashOfThisBuild) return hashOfThisBuild;
  const hash = createHash('sha256');
  for (const root of ['apps', 'libs']) {
    for (const project of readdirSync(join(REPO_ROOT, root)).sort()) {
      const dist = join(REPO_ROOT, root, project, 'dist');
      if (!existsSync(dist)) continue;
      for (const file of (readdirSync(dist, { recursive: true }) as string[]).sort()) {
        if (!file.endsWith('.js') && !file.endsWith('.sql')) continue;
        hash
          .update(`${root}/${project}/${file}\0`)
          .update(readFileSync(join(dist, file)))
          .update('\0');
      }
    }
  }
  hashOfThisBuild = hash.digest('hex');
  return hashOfThisBuild;
}

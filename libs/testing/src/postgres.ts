import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

/** A database of its own on the machine's server, or on `adminUrl`'s (a PrivatePostgresServer's). */
export async function createTestDatabase(
  prefix = 'townhall_test',
  adminUrl = POSTGRES_ADMIN_URL,
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`, adminUrl);
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

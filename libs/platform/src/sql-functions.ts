import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { DataSource, EntityManager } from 'typeorm';
import { quoteSchema } from './outbox/outbox.js';

/**
 * One server-side function of a schema, as its one current definition: the SQL that (re)defines
 * it, applied after the schema's migrations whenever it changed (`applySqlFunctions`).
 */
export interface SqlFunction {
  /** The function's name in its schema; its row in `<schema>.function_checksums`. */
  name: string;
  /**
   * `CREATE OR REPLACE FUNCTION <schema>.<name>(...)`: one function, one signature. A changed
   * signature (arguments, result) is just written here: the step drops the one it applied
   * before. Only a signature it never applied (a migration's) is the file's to drop first:
   * `DROP FUNCTION IF EXISTS <schema>.<name>(<its argument types>);`.
   */
  sql: string;
}

const FUNCTION_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The functions of a folder, one `<name>.sql` file each, in the order of their names. */
export function sqlFunctionFiles(folder: URL): SqlFunction[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.sql'.length);
      if (!FUNCTION_NAME.test(name)) throw new Error(`Not a function's name: ${file} in ${folder.pathname}`);
      return { name, sql: readFileSync(new URL(file, folder), 'utf8') };
    });
}

interface Applied {
  name: string;
  checksum: string;
  /** Its argument types, as `pg_get_function_identity_arguments` gives them. */
  arguments: string;
}

/**
 * The repeatable step of a schema's migration, run after its versioned migrations: every function
 * whose SQL is not the one last applied (by its sha256 in `<schema>.function_checksums`, which
 * this creates, unless the schema has no function at all) is applied, in the order given; a
 * recorded function that is no longer given is dropped. One transaction, under a lock of its
 * own, so two migrate commands never interleave and a failed definition leaves every function as
 * it was. Returns what it did, one line per function (`function <schema>.<name>`, `dropped
 * function <schema>.<name>`); nothing when every function is current.
 *
 * Each name ends with exactly one signature: the one its definition created. The signature the
 * step applied before, if it is another, is dropped (a changed signature; or, with an older
 * release's definitions, a rollback); any other second signature is refused.
 */
export async function applySqlFunctions(
  dataSource: DataSource,
  schema: string,
  functions: readonly SqlFunction[],
): Promise<string[]> {
  const s = quoteSchema(schema);
  const table = `${s}.function_checksums`;
  if (functions.length === 0) {
    // A schema that never had functions keeps no record of them.
    const [row]: Array<{ recorded: boolean }> = await dataSource.query(
      'SELECT to_regclass($1) IS NOT NULL AS recorded',
      [table],
    );
    if (!row?.recorded) return [];
  }
  return dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.function_checksums`]);
    await manager.query(`CREATE TABLE IF NOT EXISTS ${table} (
      name       text PRIMARY KEY,
      checksum   text NOT NULL,
      arguments  text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows: Applied[] = await manager.query(`SELECT name, checksum, arguments FROM ${table}`);
    const recorded = new Map(rows.map((row) => [row.name, row]));
    const done: string[] = [];
    for (const fn of functions) {
      const checksum = createHash('sha256').update(fn.sql).digest('hex');
      if (recorded.get(fn.name)?.checksum === checksum) continue;
      try {
        await manager.query(fn.sql);
      } catch (error) {
        throw new Error(`${schema}.${fn.name}: ${(error as Error).message}`, { cause: error });
      }
      const args = await oneSignature(manager, schema, fn.name, recorded.get(fn.name)?.arguments);
      await manager.query(
        `INSERT INTO ${table} (name, checksum, arguments) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE
           SET checksum = EXCLUDED.checksum, arguments = EXCLUDED.arguments, applied_at = now()`,
        [fn.name, checksum, args],
      );
      done.push(`function ${schema}.${fn.name}`);
    }
    for (const { name, arguments: args } of rows) {
      if (functions.some((fn) => fn.name === name)) continue;
      await manager.query(`DROP FUNCTION IF EXISTS ${s}.${name}(${args})`);
      await manager.query(`DELETE FROM ${table} WHERE name = $1`, [name]);
      done.push(`dropped function ${schema}.${name}`);
    }
    return done;
  });
}

/**
 * The arguments of the one function `name` now is, once the signature applied before
 * (`previous`), if the definition just applied created another, is dropped.
 */
async function oneSignature(
  manager: EntityManager,
  schema: string,
  name: string,
  previous: string | undefined,
): Promise<string> {
  const signatures = async () =>
    (
      (await manager.query(
        `SELECT pg_get_function_identity_arguments(p.oid) AS arguments
           FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.proname = $2 ORDER BY p.oid`,
        [schema, name],
      )) as Array<{ arguments: string }>
    ).map((row) => row.arguments);
  let found = await signatures();
  if (found.length === 2 && previous !== undefined && found.includes(previous)) {
    await manager.query(`DROP FUNCTION ${quoteSchema(schema)}.${name}(${previous})`);
    found = await signatures();
  }
  if (found.length === 1) return found[0]!;
  throw new Error(
    found.length === 0
      ? `${name}.sql defines no function ${schema}.${name}`
      : `${schema}.${name} has ${found.length} signatures (${found.map((args) => `(${args})`).join(', ')}): ` +
          `${name}.sql must first DROP FUNCTION IF EXISTS the one it replaces`,
  );
}

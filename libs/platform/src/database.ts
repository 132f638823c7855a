import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { DEFAULT_POOL_WAIT_MS, required } from './config.js';
import { applySqlFunctions, type SqlFunction } from './sql-functions.js';

/**
 * How long a new pool waits for its first connection, at a process's start (a service, a migration,
 * standalone's embedded PGlite): nothing is being served yet, so nothing is shed by waiting, and a
 * database that is starting, or a start starved of CPU on a busy machine (PGlite shares the process),
 * can take longer than a request's 2 s to finish the handshake. A refused connection fails at once.
 */
const FIRST_CONNECTION_WAIT_MS = 30_000;

/**
 * pg, with a Pool whose every client always has an 'error' listener. pg-pool hands a freed client
 * to the next waiting caller from inside the socket read that freed it, and TypeORM attaches its
 * own listener a promise tick later: a FATAL message in the same read (a backend terminated right
 * after its last answer) reached a client with no listener, and Node ended the process. The error
 * still reaches the query it failed, TypeORM and the pool (which drop that client); this listener
 * only keeps it from being thrown. test/e2e/faults/postgres.e2e-spec.ts terminates backends under
 * load, which is how this was found. It also waits FIRST_CONNECTION_WAIT_MS for its first connection.
 */
class GuardedPool extends pg.Pool {
  constructor(options?: pg.PoolConfig) {
    const waitMs = options?.connectionTimeoutMillis;
    super(
      waitMs ? { ...options, connectionTimeoutMillis: Math.max(waitMs, FIRST_CONNECTION_WAIT_MS) } : options,
    );
    this.on('connect', (client) => client.on('error', ignoreClientError));
    // Patient until its first connection, then DATABASE_POOL_WAIT_MS again (pg-pool and each new
    // client read it from the pool's options when they start waiting).
    if (waitMs) this.once('connect', () => (this.options.connectionTimeoutMillis = waitMs));
  }
}

function ignoreClientError(): void {
  // Handled where it matters: see GuardedPool.
}

const guardedPg: typeof pg = Object.create(pg, { Pool: { value: GuardedPool } }) as typeof pg;

/** A service's connection pool: DATABASE_POOL_SIZE and DATABASE_POOL_WAIT_MS. */
export interface PoolSettings {
  /** Connections at most (10). */
  size?: number;
  /**
   * How long a statement may wait for a connection of a full pool (and a new connection may
   * take) before it is shed (2,000 ms): a 'saturated' DatabaseFault.
   */
  waitMs?: number;
}

export interface SchemaDataSourceOptions {
  url: string;
  /** The Postgres schema this service owns; it reads and writes no other. */
  schema: string;
  entities: DataSourceOptions['entities'];
  migrations: DataSourceOptions['migrations'];
  /**
   * Its server-side functions, one current definition each (`sqlFunctionFiles` of the service's
   * `src/db/functions/`): applied after the migrations, whenever one changed.
   */
  functions?: readonly SqlFunction[];
  pool?: PoolSettings;
}

/** A service's DataSource: its schema, with the functions `migrateSchema` applies after the migrations. */
export class SchemaDataSource extends DataSource {
  constructor(
    options: DataSourceOptions,
    readonly functions: readonly SqlFunction[],
  ) {
    super(options);
  }
}

/**
 * One DataSource per service schema. `synchronize` is off: the schema changes only
 * through migrations, run by the explicit migrate command (a Kubernetes Job in
 * production), never by an app at start.
 */
export function createSchemaDataSource(options: SchemaDataSourceOptions): SchemaDataSource {
  const dataSourceOptions: DataSourceOptions = {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    // TypeORM's own logger writes coloured multi-line SQL to stdout, which breaks the JSON-lines
    // logs, and most failed queries are expected (a unique violation is a 409). An unexpected one
    // reaches RemoteErrorFilter, which logs it as internal.error with its stack.
    logging: false,
    poolSize: options.pool?.size ?? 10,
    driver: guardedPg,
    extra: {
      // One name per process and schema, on each of its connections: Postgres then knows which
      // processes are alive (pg_stat_activity), and the outbox relay takes over the claims of
      // one that is gone (connectionHolder).
      application_name: `townhall-${options.schema}/${randomBytes(6).toString('hex')}`,
      connectionTimeoutMillis: options.pool?.waitMs ?? DEFAULT_POOL_WAIT_MS,
    },
  };
  return new SchemaDataSource(dataSourceOptions, options.functions ?? []);
}

/**
 * The name this DataSource's connections give Postgres (their application_name) when it is one
 * process's own (createSchemaDataSource): listed in pg_stat_activity while the process has a
 * connection open, gone within moments of its end, a crash included.
 */
export function connectionHolder(dataSource: DataSource): string | undefined {
  const name = (dataSource.options as { extra?: { application_name?: unknown } }).extra?.application_name;
  return typeof name === 'string' && name.includes('/') ? name : undefined;
}

/** A service's DataSource, from its factory and its validated configuration, initialised. */
export async function openDataSource(
  create: (url: string, pool: PoolSettings) => DataSource,
  config: { DATABASE_URL?: string | undefined; DATABASE_POOL_SIZE: number; DATABASE_POOL_WAIT_MS: number },
): Promise<DataSource> {
  const dataSource = create(required(config.DATABASE_URL, 'DATABASE_URL'), {
    size: config.DATABASE_POOL_SIZE,
    waitMs: config.DATABASE_POOL_WAIT_MS,
  });
  await dataSource.initialize();
  return dataSource;
}

/**
 * Creates the schema if needed, applies pending migrations, then the functions of a
 * SchemaDataSource that changed (`applySqlFunctions`: the repeatable step). Returns what it
 * applied: the migrations' names, then one `function <schema>.<name>` per function.
 */
export async function migrateSchema(dataSource: DataSource): Promise<string[]> {
  const schema = (dataSource.options as { schema?: string }).schema;
  if (!schema) throw new Error('A service DataSource must name its schema');
  const initialised = dataSource.isInitialized;
  if (!initialised) await dataSource.initialize();
  // Replicas started together (two launchers, a Job and an app's first start) each migrate: one
  // at a time per schema, under a session advisory lock, so the second finds nothing left to do
  // instead of failing on the first one's half-applied step. The lock is held by a connection of
  // its own, outside the pool (which may have one connection only), and ends with it.
  const { url } = dataSource.options as { url?: string };
  const lock = new pg.Client({ connectionString: url, application_name: `townhall-${schema}-migrate` });
  lock.on('error', () => undefined);
  const key = [`townhall.migrate:${schema}`];
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', key);
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    const functions =
      dataSource instanceof SchemaDataSource
        ? await applySqlFunctions(dataSource, schema, dataSource.functions)
        : [];
    return [...applied.map((migration) => migration.name), ...functions];
  } finally {
    // Said, not only left to the connection's end: PGlite's connections share one session.
    await lock.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', key).catch(() => undefined);
    await lock.end().catch(() => undefined);
    if (!initialised) await dataSource.destroy();
  }
}

/** Postgres SQLSTATE of a failed query, if it is one. */
export function sqlState(error: unknown): { code?: string; constraint?: string } {
  if (typeof error !== 'object' || error === null) return {};
  const { code, constraint } = driverError(error) as { code?: unknown; constraint?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof constraint === 'string' ? { constraint } : {}),
  };
}

/** pg's error itself, under TypeORM's QueryFailedError if it wraps one. */
function driverError(error: object): object {
  return 'driverError' in error && typeof error.driverError === 'object' && error.driverError !== null
    ? error.driverError
    : error;
}

/**
 * The SQLSTATE a server-side function refuses with: `RAISE EXCEPTION USING ERRCODE = 'TH001',
 * MESSAGE = '<refusal>'` (and DETAIL, e.g. the status that refused). The statement's transaction
 * rolls back: a refusal writes nothing.
 */
export const REFUSAL_SQLSTATE = 'TH001';

/** A server-side function's refusal, as its typed wrapper answers it. */
export interface Refused<Refusal extends string> {
  outcome: 'refused';
  refusal: Refusal;
  detail: string | null;
}

/**
 * Runs one call of a server-side function: the refusal it raised (REFUSAL_SQLSTATE), if it is one
 * of `refusals`, is the `refused` outcome. Any other error, an unknown refusal too, is thrown.
 * Inside a transaction, a refusal has aborted it: the caller answers the refusal, it does not go on.
 */
export async function refusable<T, Refusal extends string>(
  refusals: readonly Refusal[],
  call: () => Promise<T>,
): Promise<T | Refused<Refusal>> {
  try {
    return await call();
  } catch (error) {
    if (sqlState(error).code !== REFUSAL_SQLSTATE) throw error;
    const { message, detail } = driverError(error as object) as { message?: unknown; detail?: unknown };
    const refusal = refusals.find((name) => name === message);
    if (refusal === undefined) throw error;
    return { outcome: 'refused', refusal, detail: typeof detail === 'string' ? detail : null };
  }
}

interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The rows of a statement run through TypeORM. TypeORM answers UPDATE and DELETE with
 * `[rows, affectedCount]` and everything else with `rows`; this gives rows either way,
 * so `UPDATE ... RETURNING` reads like a SELECT.
 */
export async function queryRows<Row>(
  runner: Queryable,
  sql: string,
  parameters: unknown[] = [],
): Promise<Row[]> {
  const result = await runner.query(sql, parameters);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as Row[];
  }
  return (Array.isArray(result) ? result : []) as Row[];
}

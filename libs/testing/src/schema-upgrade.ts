import { createHash } from 'node:crypto';
import {
  createLogger,
  migrateSchema,
  OutboxRelay,
  OutboxWriter,
  type SchemaDataSource,
} from '@townhall/platform/service';
import { DataSource, type EntityManager, type MigrationInterface } from 'typeorm';
import { createTestDatabase, type TestDatabase } from './postgres.js';

/**
 * The newest migration of every schema when the repeatable function step came (issue [16]):
 * databases deployed before it have the migrations up to this one, their functions as those
 * migrations created them, and no `function_checksums`. Old migrations never change, so running
 * the tree's own reproduces that schema exactly (checked against a dump of the schema that
 * today's migrations made when the step was written).
 */
export const DEPLOYED_BEFORE_FUNCTION_STEP = 1765100000000;

/**
 * `TOWNHALL_TEST_DATABASE=upgraded` (the jest project `service-upgraded`): tests build their schema
 * by the upgrade path (migrateByUpgrade) instead of afresh, so the same suite proves an upgraded
 * database.
 */
export function upgradedDatabases(): boolean {
  return process.env['TOWNHALL_TEST_DATABASE'] === 'upgraded';
}

type MigrationClass = new () => MigrationInterface;

/**
 * Builds `dataSource`'s schema (not initialised; closed after) as a database deployed before the
 * function step has it: the migrations through DEPLOYED_BEFORE_FUNCTION_STEP, and nothing else.
 * Returns their names.
 */
export async function migrateAsDeployed(dataSource: DataSource): Promise<string[]> {
  const options = dataSource.options as DataSource['options'] & { schema: string };
  const migrations = (options.migrations as MigrationClass[]).filter(
    (migration) => Number(/\d{13}$/.exec(migration.name)?.[0]) <= DEPLOYED_BEFORE_FUNCTION_STEP,
  );
  // A plain DataSource: the migrations alone, as TypeORM ran them then.
  const deployed = new DataSource({ ...options, migrations });
  await deployed.initialize();
  try {
    await deployed.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    return (await deployed.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await deployed.destroy();
  }
}

/**
 * Migrates `create`'s schema in the database at `url` as this test run asks: afresh
 * (migrateSchema: every migration, then the functions), or, with upgradedDatabases(), as a
 * deployed database is upgraded (migrateAsDeployed, then migrateSchema: the migrations since,
 * and the functions by checksum). Returns what the last step applied.
 */
export async function migrateForTests(
  create: (url: string, pool: { size: number }) => DataSource,
  url: string,
): Promise<string[]> {
  if (upgradedDatabases()) await migrateAsDeployed(create(url, { size: 1 }));
  return migrateSchema(create(url, { size: 1 }));
}

/**
 * What keeps the schema of `dataSource` (a SchemaDataSource, initialised) from holding exactly
 * its function definitions, each as last applied: a function of the schema that none defines
 * (a migration's leftover), a definition missing from the schema or recorded with another
 * checksum, a name with more than one signature. Empty when all is well.
 */
export async function functionDrift(dataSource: SchemaDataSource): Promise<string[]> {
  const { schema } = dataSource.options as { schema: string };
  const { functions } = dataSource;
  const present: Array<{ name: string; signatures: number }> = await dataSource.query(
    `SELECT proname AS name, count(*)::int AS signatures FROM pg_proc
      WHERE pronamespace = $1::regnamespace GROUP BY proname ORDER BY proname`,
    [schema],
  );
  const recorded: Array<{ name: string; checksum: string }> = await dataSource.query(
    `SELECT name, checksum FROM "${schema}".function_checksums`,
  );
  const defined = new Map(
    functions.map((fn) => [fn.name, createHash('sha256').update(fn.sql).digest('hex')]),
  );
  return [
    ...present.filter(({ name }) => !defined.has(name)).map(({ name }) => `${schema}.${name}: no definition`),
    ...present
      .filter(({ signatures }) => signatures > 1)
      .map(({ name, signatures }) => `${schema}.${name}: ${signatures} signatures`),
    ...[...defined].flatMap(([name, checksum]) =>
      !present.some((fn) => fn.name === name)
        ? [`${schema}.${name}: not in the schema`]
        : recorded.find((row) => row.name === name)?.checksum !== checksum
          ? [`${schema}.${name}: not the definition last applied`]
          : [],
    ),
  ];
}

/** One service's schema in a database of its own, for tests of its SQL functions. */
export interface SchemaUnderTest {
  database: TestDatabase;
  /** Initialised, a pool of 4. */
  dataSource: SchemaDataSource;
  /** The schema's outbox writer; its relay never runs, so what the functions announce stays to be read. */
  outbox: OutboxWriter;
  /** What building the schema applied. */
  built: string[];
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Runs one migration's `up` or `down` on the schema again, as the migrate command runs it. */
  migrate(migration: MigrationInterface, step: 'up' | 'down'): Promise<void>;
  close(): Promise<void>;
}

/**
 * A database of its own with `create`'s schema built by `build` (by default `migrateForTests`:
 * afresh, or by the upgrade path when this run asks for it).
 */
export async function schemaUnderTest(
  create: (url: string, pool: { size: number }) => DataSource,
  build: (url: string) => Promise<string[]> = (url) => migrateForTests(create, url),
): Promise<SchemaUnderTest> {
  const database = await createTestDatabase(`townhall_functions`);
  try {
    const built = await build(database.url);
    const dataSource = create(database.url, { size: 4 }) as SchemaDataSource;
    await dataSource.initialize();
    const { schema } = dataSource.options as { schema: string };
    const relay = new OutboxRelay({
      dataSource,
      schema,
      publisher: { publish: () => Promise.reject(new Error('this relay never runs')) },
      logger: createLogger(schema, 'silent'),
    });
    return {
      database,
      dataSource,
      outbox: new OutboxWriter(dataSource, relay, { schema, source: `townhall/${schema}` }),
      built,
      query: (sql, params = []) => dataSource.query(sql, params),
      transaction: (work) => dataSource.transaction(work),
      migrate: async (migration, step) => {
        const runner = dataSource.createQueryRunner();
        try {
          await migration[step](runner);
        } finally {
          await runner.release();
        }
      },
      close: async () => {
        await dataSource.destroy();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/**
 * What migrateForTests applies to `dataSource`'s schema in this run: every migration (afresh) or
 * those since the deployed schema (upgraded), then every function.
 */
export function migratedForTests(dataSource: SchemaDataSource): string[] {
  const { schema, migrations } = dataSource.options as DataSource['options'] & {
    schema: string;
    migrations: MigrationClass[];
  };
  return [
    ...migrations
      .map((migration) => migration.name)
      .filter((name) => !upgradedDatabases() || Number(name.slice(-13)) > DEPLOYED_BEFORE_FUNCTION_STEP),
    ...dataSource.functions.map((fn) => `function ${schema}.${fn.name}`),
  ];
}

/** schemaUnderTest as a database deployed before the function step has it (migrateAsDeployed), to upgrade. */
export function deployedSchemaUnderTest(
  create: (url: string, pool: { size: number }) => DataSource,
): Promise<SchemaUnderTest> {
  return schemaUnderTest(create, (url) => migrateAsDeployed(create(url, { size: 1 })));
}

// The repeatable step of a schema's migration (sql-functions.ts) and the refusals of its functions
// (database.ts `refusable`), on the real PostgreSQL: each test a schema of its own.
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@townhall/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createSchemaDataSource, migrateSchema, refusable } from '../src/database.js';
import type { SqlFunction } from '../src/sql-functions.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('sql_functions_test');
});
afterAll(async () => {
  await database?.drop();
});

/** A schema of its own: one table (its migration), and `functions`. */
function schemaWith(functions: SqlFunction[], schema = `fn_${randomBytes(4).toString('hex')}`) {
  class CreateCounters1700000000000 implements MigrationInterface {
    name = 'CreateCounters1700000000000';
    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`CREATE TABLE ${schema}.counters (id int PRIMARY KEY, n int NOT NULL)`);
    }
    async down(): Promise<void> {}
  }
  const dataSource = () =>
    createSchemaDataSource({
      url: database.url,
      schema,
      entities: [],
      migrations: [CreateCounters1700000000000],
      functions,
      pool: { size: 1 },
    });
  return {
    schema,
    migrate: (next: SqlFunction[] = functions) => {
      functions = next;
      return migrateSchema(dataSource());
    },
    query: async <Row>(sql: string, params: unknown[] = []): Promise<Row[]> => {
      const ds = dataSource();
      await ds.initialize();
      try {
        return (await ds.query(sql, params)) as Row[];
      } finally {
        await ds.destroy();
      }
    },
  };
}

const bump = (schema: string, by: number): SqlFunction => ({
  name: 'bump',
  sql: `-- adds ${by}
CREATE OR REPLACE FUNCTION ${schema}.bump(p_id int) RETURNS int LANGUAGE sql AS $$
  INSERT INTO ${schema}.counters (id, n) VALUES (p_id, ${by})
  ON CONFLICT (id) DO UPDATE SET n = counters.n + ${by} RETURNING n
$$;`,
});
const twice = (schema: string): SqlFunction => ({
  name: 'twice',
  sql: `CREATE OR REPLACE FUNCTION ${schema}.twice(p int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT p * 2 $$;`,
});

describe('the repeatable step: every function applied after the migrations, by checksum', () => {
  it('applies each function once, then nothing until its SQL changes', async () => {
    const fixture = schemaWith([]);
    const { schema } = fixture;
    const functions = [bump(schema, 1), twice(schema)];
    expect(await fixture.migrate(functions)).toEqual([
      'CreateCounters1700000000000',
      `function ${schema}.bump`,
      `function ${schema}.twice`,
    ]);
    expect(await fixture.migrate()).toEqual([]);
    const [row] = await fixture.query<{ n: number }>(`SELECT ${schema}.bump(1) AS n`);
    expect(row!.n).toBe(1);

    // A changed definition is applied again (CREATE OR REPLACE); the unchanged one is not.
    const before = await fixture.query<{ name: string; applied_at: Date }>(
      `SELECT name, applied_at FROM ${schema}.function_checksums ORDER BY name`,
    );
    expect(await fixture.migrate([bump(schema, 10), twice(schema)])).toEqual([`function ${schema}.bump`]);
    const [again] = await fixture.query<{ n: number }>(`SELECT ${schema}.bump(1) AS n`);
    expect(again!.n).toBe(11);
    const after = await fixture.query<{ name: string; applied_at: Date }>(
      `SELECT name, applied_at FROM ${schema}.function_checksums ORDER BY name`,
    );
    expect(after[1]).toEqual(before[1]); // twice: untouched
    expect(after[0]!.applied_at.getTime()).toBeGreaterThan(before[0]!.applied_at.getTime());
  });

  it('lets replicas migrate at once: one applies every step, the others find nothing left to do', async () => {
    const fixture = schemaWith([]);
    const { schema } = fixture;
    const functions = [bump(schema, 1), twice(schema)];
    // Four at once, each with a pool of one connection (the lock has a connection of its own).
    const results = await Promise.all([1, 2, 3, 4].map(() => fixture.migrate(functions)));
    const applied = results.filter((names) => names.length > 0);
    expect(applied).toEqual([
      ['CreateCounters1700000000000', `function ${schema}.bump`, `function ${schema}.twice`],
    ]);
    const [row] = await fixture.query<{ n: number }>(`SELECT ${schema}.bump(1) AS n`);
    expect(row!.n).toBe(1);
    // The lock went with the migrations: nobody holds it now.
    const held = await fixture.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid::bigint = (hashtextextended($1, 0) & 4294967295)`,
      [`townhall.migrate:${schema}`],
    );
    expect(held).toEqual([]);
  });

  it('ends each function with the signature of its definition: a change or a rollback drops the one before', async () => {
    const fixture = schemaWith([]);
    const { schema } = fixture;
    const v1 = bump(schema, 1);
    await fixture.migrate([v1, twice(schema)]);
    const v2: SqlFunction = {
      name: 'bump',
      sql: `CREATE OR REPLACE FUNCTION ${schema}.bump(p_id int, p_step int DEFAULT 1) RETURNS int LANGUAGE sql AS $$
  INSERT INTO ${schema}.counters (id, n) VALUES (p_id, p_step)
  ON CONFLICT (id) DO UPDATE SET n = counters.n + p_step RETURNING n
$$;`,
    };
    const signatures = async () =>
      (
        await fixture.query<{ signature: string }>(
          `SELECT oid::regprocedure::text AS signature FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY 1`,
          [schema],
        )
      ).map((row) => row.signature.replace(`${schema}.`, ''));
    expect(await fixture.migrate([v2, twice(schema)])).toEqual([`function ${schema}.bump`]);
    expect(await signatures()).toEqual(['bump(integer,integer)', 'twice(integer)']);
    const [row] = await fixture.query<{ n: number }>(`SELECT ${schema}.bump(p_id => 7, p_step => 5) AS n`);
    expect(row!.n).toBe(5);
    // The previous release's definitions again (a rollback): its signature back, the newer one gone.
    expect(await fixture.migrate([v1, twice(schema)])).toEqual([`function ${schema}.bump`]);
    expect(await signatures()).toEqual(['bump(integer)', 'twice(integer)']);
  });

  it('refuses a second signature it did not apply itself, until the definition drops it', async () => {
    const fixture = schemaWith([]);
    const { schema } = fixture;
    await fixture.migrate();
    // As an old migration made it: the step never applied it.
    await fixture.query(
      `CREATE FUNCTION ${schema}.twice(p bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT p * 2 $$`,
    );
    const changedBump = bump(schema, 2);
    await expect(fixture.migrate([changedBump, twice(schema)])).rejects.toThrow(
      `${schema}.twice has 2 signatures ((p bigint), (p integer)): ` +
        'twice.sql must first DROP FUNCTION IF EXISTS the one it replaces',
    );
    // Nothing of that step stayed, the other function's change neither.
    expect(
      await fixture.query(
        `SELECT 1 FROM pg_proc WHERE pronamespace = $1::regnamespace AND proname = 'bump'`,
        [schema],
      ),
    ).toEqual([]);
    const dropping = {
      ...twice(schema),
      sql: `DROP FUNCTION IF EXISTS ${schema}.twice(bigint);\n${twice(schema).sql}`,
    };
    expect(await fixture.migrate([changedBump, dropping])).toEqual([
      `function ${schema}.bump`,
      `function ${schema}.twice`,
    ]);
    const [row] = await fixture.query<{ n: number }>(`SELECT ${schema}.twice(21) AS n`);
    expect(row!.n).toBe(42);
  });

  it('drops a function whose definition is gone, and names the file of a definition that fails', async () => {
    const fixture = schemaWith([]);
    const { schema } = fixture;
    await fixture.migrate([bump(schema, 1), twice(schema)]);
    expect(await fixture.migrate([bump(schema, 1)])).toEqual([`dropped function ${schema}.twice`]);
    expect(
      await fixture.query(
        `SELECT 1 FROM pg_proc WHERE pronamespace = $1::regnamespace AND proname = 'twice'`,
        [schema],
      ),
    ).toEqual([]);

    const broken: SqlFunction = {
      name: 'twice',
      sql: `CREATE OR REPLACE FUNCTION ${schema}.twice(p int) RETURNS int LANGUAGE sql AS $$ SELECT p * $$;`,
    };
    await expect(fixture.migrate([bump(schema, 2), broken])).rejects.toThrow(`${schema}.twice: syntax error`);
    // Nothing of that step stayed: bump is still the one applied before.
    const [row] = await fixture.query<{ n: number }>(`SELECT ${schema}.bump(3) AS n`);
    expect(row!.n).toBe(1);
    const misnamed: SqlFunction = { name: 'thrice', sql: twice(schema).sql };
    await expect(fixture.migrate([bump(schema, 1), misnamed])).rejects.toThrow(
      `thrice.sql defines no function ${schema}.thrice`,
    );
  });

  it('runs two migrate commands at once one after the other, each function applied once', async () => {
    const fixture = schemaWith([]);
    await fixture.migrate(); // the migrations first: TypeORM's own runs do not wait for each other
    const functions = [bump(fixture.schema, 1), twice(fixture.schema)];
    const [first, second] = await Promise.all([fixture.migrate(functions), fixture.migrate(functions)]);
    const applied = [...first!, ...second!].filter((line) => line.startsWith('function'));
    expect(applied.sort()).toEqual([`function ${fixture.schema}.bump`, `function ${fixture.schema}.twice`]);
  });

  it('keeps no record in a schema without functions', async () => {
    const fixture = schemaWith([]);
    await fixture.migrate();
    const [row] = await fixture.query<{ recorded: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS recorded',
      [`${fixture.schema}.function_checksums`],
    );
    expect(row!.recorded).toBe(false);
  });
});

describe('refusable: a function refuses with SQLSTATE TH001 and the refusal as its message', () => {
  const refuse = (message: string, detail?: string) =>
    `DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = '${message}'${
      detail ? `, DETAIL = '${detail}'` : ''
    }; END $$`;

  it('answers a refusal it knows as the refused outcome, and throws anything else', async () => {
    const { query } = schemaWith([]);
    expect(await refusable(['sold_out', 'not_on_sale'], () => query(refuse('not_on_sale', 'ended')))).toEqual(
      {
        outcome: 'refused',
        refusal: 'not_on_sale',
        detail: 'ended',
      },
    );
    expect(await refusable(['sold_out'], () => query(refuse('sold_out')))).toEqual({
      outcome: 'refused',
      refusal: 'sold_out',
      detail: null,
    });
    await expect(refusable(['sold_out'], () => query(refuse('nonce_reused')))).rejects.toMatchObject({
      message: expect.stringContaining('nonce_reused'),
    });
    await expect(refusable(['sold_out'], () => query('SELECT 1/0'))).rejects.toThrow('division by zero');
    expect(await refusable(['sold_out'], async () => 'bought')).toBe('bought');
  });
});

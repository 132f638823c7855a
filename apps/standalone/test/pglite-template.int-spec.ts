import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createLogger, createSchemaDataSource, type AnyDomainService } from '@townhall/platform/service';
import { DOMAIN_SERVICES } from '../src/domain-services.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/embedded-postgres.js';
import { pgliteTemplate, templateKey } from '../src/pglite-template.js';

const logger = createLogger('pglite-template-test', 'silent');

/** Every table of the services' schemas, and each schema's applied migrations. */
async function schemaOf(url: string): Promise<{ tables: string[]; migrations: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schemas = DOMAIN_SERVICES.map((service) => service.schema);
    const tables = await client.query<{ name: string }>(
      `SELECT schemaname || '.' || tablename AS name FROM pg_tables WHERE schemaname = ANY($1) ORDER BY 1`,
      [schemas],
    );
    let migrations = 0;
    for (const schema of schemas)
      migrations += Number(
        (await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".migrations`)).rows[0]!.n,
      );
    return { tables: tables.rows.map((row) => row.name), migrations };
  } finally {
    await client.end();
  }
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('the PGlite template a new standalone database begins from', () => {
  let cacheDir: string;
  let work: string;
  let fromInitdb: { tables: string[]; migrations: number };
  const open: EmbeddedPostgres[] = [];
  const start = async (dataDir: string | undefined) => {
    const database = await startEmbeddedPostgres({ dataDir, services: DOMAIN_SERVICES, logger, cacheDir });
    open.push(database);
    return database;
  };

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'townhall-template-cache-'));
    work = mkdtempSync(join(tmpdir(), 'townhall-template-work-'));
  });
  afterEach(async () => {
    for (const database of open.splice(0)) await database.stop();
  });
  afterAll(() => {
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('is made by the first new database, once migrated, as a folder and a dump', async () => {
    const template = pgliteTemplate(DOMAIN_SERVICES, cacheDir);
    expect(template.exists()).toBe(false);
    expect(template.dump()).toBeUndefined();
    expect(template.copyTo(join(work, 'nothing-to-copy'))).toBe(false);
    expect(existsSync(join(work, 'nothing-to-copy'))).toBe(false);

    const database = await start(join(work, 'first'));
    fromInitdb = await schemaOf(database.url);
    expect(fromInitdb.tables.length).toBeGreaterThan(20);
    expect(fromInitdb.migrations).toBeGreaterThan(10);
    expect(template.exists()).toBe(true);
    expect(readdirSync(cacheDir).sort()).toEqual([
      `pglite-template-${template.key}`,
      `pglite-template-${template.key}.tar`,
    ]);
  });

  it('gives a new data folder a copy: every schema and migration, and nothing written after', async () => {
    const first = await start(join(work, 'copy-1'));
    expect(await schemaOf(first.url)).toEqual(fromInitdb);
    await query(first.url, `CREATE TABLE public.only_in_copy_1 (id int)`);
    await first.stop();
    open.splice(open.indexOf(first), 1);
    // A restart keeps what was written; another new folder does not have it.
    const again = await start(join(work, 'copy-1'));
    expect(await query(again.url, `SELECT to_regclass('public.only_in_copy_1') AS t`)).toEqual([
      { t: 'only_in_copy_1' },
    ]);
    const second = await start(join(work, 'copy-2'));
    expect(await query(second.url, `SELECT to_regclass('public.only_in_copy_1') AS t`)).toEqual([
      { t: null },
    ]);
    expect(await schemaOf(second.url)).toEqual(fromInitdb);
  });

  it('gives a database in memory its dump', async () => {
    const database = await start(undefined);
    expect(await schemaOf(database.url)).toEqual(fromInitdb);
  });

  it('is found again only while PGlite, the schemas, migrations and functions are the same', () => {
    class AddThings {
      name = 'AddThings1';
      async up(): Promise<void> {}
    }
    const service = (migration: unknown, functionSql: string): AnyDomainService =>
      ({
        name: 'things',
        schema: 'things',
        dataSource: (url: string) =>
          createSchemaDataSource({
            url,
            schema: 'things',
            entities: [],
            migrations: [migration as never],
            functions: [{ name: 'f', sql: functionSql }],
          }),
      }) as unknown as AnyDomainService;
    const key = templateKey([service(AddThings, 'SELECT 1')]);
    expect(templateKey([service(AddThings, 'SELECT 1')])).toBe(key);
    expect(templateKey([service(AddThings, 'SELECT 2')])).not.toBe(key);
    class AddThingsChanged {
      name = 'AddThings1';
      async up(): Promise<void> {
        await Promise.resolve('changed');
      }
    }
    expect(templateKey([service(AddThingsChanged, 'SELECT 1')])).not.toBe(key);
    expect(templateKey([...DOMAIN_SERVICES])).not.toBe(key);
  });

  it('replaces an older key’s template, and two keeping it at once leave one whole template', async () => {
    const other = mkdtempSync(join(tmpdir(), 'townhall-template-race-'));
    // Two migrated databases (in one process here; two first starts would be two processes).
    const dump = pgliteTemplate(DOMAIN_SERVICES, cacheDir).dump()!;
    const [a, b] = [await PGlite.create({ loadDataDir: dump }), await PGlite.create({ loadDataDir: dump })];
    try {
      writeFileSync(join(other, 'pglite-template-0000.tar'), 'an older template');
      const template = pgliteTemplate(DOMAIN_SERVICES, other);
      await Promise.all(
        [template.keep(a), template.keep(b)].map((kept) => kept.catch(() => 'lost the race')),
      );
      expect(template.exists()).toBe(true);
      expect(readdirSync(other).sort()).toEqual([
        `pglite-template-${template.key}`,
        `pglite-template-${template.key}.tar`,
      ]);
      const copy = await startEmbeddedPostgres({
        dataDir: join(work, 'after-race'),
        services: DOMAIN_SERVICES,
        logger,
        cacheDir: other,
      });
      open.push(copy);
      expect(await schemaOf(copy.url)).toEqual(fromInitdb);
    } finally {
      await a.close();
      await b.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});

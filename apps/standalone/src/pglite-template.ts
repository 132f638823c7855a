import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { SchemaDataSource, type AnyDomainService } from '@townhall/platform/service';

/**
 * The migrated template a new database begins from: PGlite's data folder right after initdb and
 * every schema's migrations and functions. initdb alone is 2.5-3 s of WASM on the 2-core
 * machine; a copy of the template folder takes 50 ms. It is kept twice in the repository's cache
 * folder (`node_modules/.cache/townhall`), under its key: as a folder, which a data folder's first
 * start copies (PGlite then opens it as it opens any restart's), and as PGlite's own dump
 * (`dumpDataDir`), which `--ephemeral` loads into memory (`loadDataDir`; a dump loaded into a data
 * folder instead would leave 200 MB more of WASM memory resident). Made by `npm install` (the
 * root's `prepare` runs `prepare-template.js`), or by the first start that finds none.
 *
 * The key covers everything that shapes the folder: PGlite's version and each service's schema,
 * migrations (their names and code) and functions (their SQL). A start still runs the migrations
 * afterwards, which find nothing to do, so a template is only a head start, never the source of
 * the schema.
 */
export interface PgliteTemplate {
  key: string;
  /** Whether it is there, folder and dump. */
  exists(): boolean;
  /**
   * Makes `pgdata` (which must not exist yet) a copy of the template folder; false if there is
   * none (or it could not be copied: then nothing is left at `pgdata`).
   */
  copyTo(pgdata: string): boolean;
  /** The template's dump, for a database in memory; undefined if there is none. */
  dump(): Blob | undefined;
  /** Keeps `db` (just migrated, nothing else in it) as the template; drops older keys' templates. */
  keep(db: PGlite): Promise<void>;
}

const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/townhall/', import.meta.url));
const PREFIX = 'pglite-template-';

export function pgliteTemplate(
  services: readonly AnyDomainService[],
  cacheDir: string = DEFAULT_CACHE_DIR,
): PgliteTemplate {
  const key = templateKey(services);
  const folder = join(cacheDir, `${PREFIX}${key}`);
  const dumpFile = `${folder}.tar`;
  return {
    key,
    exists: () => existsSync(join(folder, 'PG_VERSION')) && existsSync(dumpFile),
    copyTo(pgdata) {
      if (!existsSync(join(folder, 'PG_VERSION'))) return false;
      try {
        cpSync(folder, pgdata, { recursive: true, errorOnExist: true, force: false });
        return true;
      } catch {
        rmSync(pgdata, { recursive: true, force: true });
        return false;
      }
    },
    dump() {
      try {
        return new Blob([readFileSync(dumpFile)]);
      } catch {
        return undefined;
      }
    },
    async keep(db) {
      // Every page on disk, so that neither copy needs recovery when it is opened.
      await db.exec('CHECKPOINT');
      const dump = await db.dumpDataDir('none');
      mkdirSync(cacheDir, { recursive: true });
      // Each part is written aside and then renamed: a reader never sees half a template; of
      // two first starts at once, the first to rename keeps its folder.
      const aside = `${folder}.${process.pid}.partial`;
      try {
        const unpacked = await PGlite.create({ dataDir: aside, loadDataDir: dump });
        await unpacked.close();
        writeFileSync(`${aside}.tar`, new Uint8Array(await dump.arrayBuffer()));
        renameSync(`${aside}.tar`, dumpFile);
        if (!existsSync(folder)) renameSync(aside, folder);
      } finally {
        rmSync(aside, { recursive: true, force: true });
        rmSync(`${aside}.tar`, { force: true });
      }
      for (const name of readdirSync(cacheDir))
        if (name.startsWith(PREFIX) && !name.startsWith(`${PREFIX}${key}`))
          rmSync(join(cacheDir, name), { recursive: true, force: true });
    },
  };
}

/** sha256 of PGlite's version and every service's schema, migrations and functions, in order. */
export function templateKey(services: readonly AnyDomainService[]): string {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const service of services) {
    // Not initialised: the factory only states the schema's options.
    const dataSource = service.dataSource('postgres://template.invalid/none', { size: 1 });
    hash.update(`schema ${service.schema}\n`);
    for (const migration of (dataSource.options.migrations ?? []) as unknown[])
      hash.update(`migration ${String(migration)}\n`);
    if (dataSource instanceof SchemaDataSource)
      for (const fn of dataSource.functions) hash.update(`function ${fn.name}\n${fn.sql}\n`);
  }
  return hash.digest('hex').slice(0, 32);
}

function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const manifest = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

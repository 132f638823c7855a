import { existsSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { AnyDomainService, Logger } from '@townhall/platform/service';
import { PGliteServer } from './pglite-server.js';
import { pgliteTemplate, type PgliteTemplate } from './pglite-template.js';

export interface EmbeddedPostgres {
  /** A postgres:// URL the `pg` driver (and psql) connect to. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Postgres' shared buffers in PGlite: 32 MB instead of its 128 MB. PGlite's memory is part of this
 * process's, and a laptop's data fits many times over; measured, 115 MB less resident memory.
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/**
 * One PGlite (real Postgres compiled to WASM) for every schema, served on a loopback port so
 * that the services use the same `pg` driver, pools and SQL as against a Postgres server, with
 * every service's schema migrated. PGlite runs one statement or transaction at a time
 * (PGliteServer): correct isolation, and the reason no code may hold a transaction open while it
 * waits for another connection (docs/architecture.md "The shape"). `dataDir` undefined keeps
 * everything in memory.
 *
 * A new database begins from the migrated template (pglite-template.ts): a copy of its folder, or
 * its dump loaded into memory. Without one it begins from initdb, and becomes the template once
 * migrated (a failure to keep it only warns).
 */
export async function startEmbeddedPostgres(options: {
  /** PGlite's folder; undefined keeps the database in memory. */
  dataDir: string | undefined;
  /** Whose schemas it holds, migrated in this order. */
  services: readonly AnyDomainService[];
  logger: Logger;
  /** Where the template is kept (default: the repository's cache folder). */
  cacheDir?: string;
}): Promise<EmbeddedPostgres> {
  const { dataDir, services, logger } = options;
  let dump: Blob | undefined;
  // The template this database becomes once migrated: a new one that found none to begin from.
  let toKeep: PgliteTemplate | undefined;
  if (dataDir === undefined || !existsSync(dataDir)) {
    const template = pgliteTemplate(services, options.cacheDir);
    const found = dataDir === undefined ? (dump = template.dump()) !== undefined : template.copyTo(dataDir);
    if (!found) toKeep = template;
  }
  const db = await PGlite.create({
    ...(dataDir !== undefined && { dataDir }),
    ...(dump && { loadDataDir: dump }),
    startParams: PGLITE_START_PARAMS,
  });
  const server = new PGliteServer(db);
  const stop = async () => {
    await server.close();
    await db.close();
  };
  try {
    const url = `postgres://postgres@127.0.0.1:${await server.listen()}/postgres`;
    // From a template or an earlier start, only what is newer than it; from initdb, everything.
    for (const service of services) await service.migrate(url);
    if (toKeep)
      await toKeep.keep(db).catch((error: unknown) => {
        logger.warn({ err: error }, 'could not keep the migrated database as the template');
      });
    return { url, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

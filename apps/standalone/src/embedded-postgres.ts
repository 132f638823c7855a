import { PGlite } from '@electric-sql/pglite';
import { PGliteServer } from './pglite-server.js';

export interface EmbeddedPostgres {
  /** A postgres:// URL the `pg` driver (and psql) connect to. */
  url: string;
  stop(): Promise<void>;
}

/**
 * One PGlite (real Postgres compiled to WASM) for every schema, served on a loopback port so
 * that the services use the same `pg` driver, pools and SQL as against a Postgres server.
 * PGlite runs one statement or transaction at a time (PGliteServer): correct isolation, and
 * the reason no code may hold a transaction open while it waits for another connection
 * (docs/architecture.md "The shape"). `dataDir` undefined keeps everything in memory.
 */
export async function startEmbeddedPostgres(dataDir: string | undefined): Promise<EmbeddedPostgres> {
  const db = await PGlite.create(dataDir ?? 'memory://');
  const server = new PGliteServer(db);
  const port = await server.listen();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.close();
      await db.close();
    },
  };
}

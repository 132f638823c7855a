/* eslint-disable no-console -- a step of `npm install` that says what it did */
// `node apps/standalone/dist/prepare-template.js`: makes PGlite's migrated template
// (pglite-template.ts) unless it is there already, so that the first `npm start` begins from it.
// The root's `prepare` script runs it at `npm install`. A failure only warns: the first start then
// makes the template itself.
import 'reflect-metadata';
import { createLogger } from '@townhall/platform';
import { DOMAIN_SERVICES } from './domain-services.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { pgliteTemplate } from './pglite-template.js';

const started = Date.now();
const template = pgliteTemplate(DOMAIN_SERVICES);
if (template.exists()) {
  console.log(`PGlite template ${template.key}: up to date`);
} else {
  try {
    // A database in memory, from initdb: once migrated, it becomes the template.
    const database = await startEmbeddedPostgres({
      dataDir: undefined,
      services: DOMAIN_SERVICES,
      logger: createLogger('prepare', 'warn'),
    });
    await database.stop();
    console.log(
      `PGlite template ${template.key}: ${template.exists() ? 'made' : 'NOT made'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    console.warn('Could not make the PGlite template (the first start will):', error);
  }
}

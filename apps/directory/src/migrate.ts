import 'reflect-metadata';
import { createLogger, loadConfigOrExit } from '@townhall/platform/service';
import { DirectoryConfigSchema } from './config.js';
import { migrateDirectory } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfigOrExit(DirectoryConfigSchema.required({ DATABASE_URL: true }), 'directory-migrate');
const logger = createLogger('directory-migrate', config.LOG_LEVEL);
const applied = await migrateDirectory(config.DATABASE_URL);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : 'schema directory is up to date',
);

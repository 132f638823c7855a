import 'reflect-metadata';
import { createLogger, loadConfig, required } from '@townhall/platform/service';
import { DirectoryConfigSchema } from './config.js';
import { migrateDirectory } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfig(DirectoryConfigSchema);
const logger = createLogger('directory-migrate', config.LOG_LEVEL);
const applied = await migrateDirectory(required(config.DATABASE_URL, 'DATABASE_URL'));
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : 'schema directory is up to date',
);

import 'reflect-metadata';
import { createLogger, loadConfig, migrateSchema, required } from '@townhall/platform/service';
import { EngagementConfigSchema } from './config.js';
import { createEngagementDataSource, ENGAGEMENT_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfig(EngagementConfigSchema);
const logger = createLogger('engagement-migrate', config.LOG_LEVEL);
const applied = await migrateSchema(
  createEngagementDataSource(required(config.DATABASE_URL, 'DATABASE_URL'), 1),
);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${ENGAGEMENT_SCHEMA} is up to date`,
);

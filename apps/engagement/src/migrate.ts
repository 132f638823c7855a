import 'reflect-metadata';
import { createLogger, loadConfigOrExit } from '@townhall/platform/service';
import { EngagementConfigSchema } from './config.js';
import { migrateEngagement } from './service.js';
import { ENGAGEMENT_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfigOrExit(
  EngagementConfigSchema.required({ DATABASE_URL: true }),
  'engagement-migrate',
);
const logger = createLogger('engagement-migrate', config.LOG_LEVEL);
const applied = await migrateEngagement(config.DATABASE_URL);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${ENGAGEMENT_SCHEMA} is up to date`,
);

import 'reflect-metadata';
import { createLogger, loadConfig, migrateSchema, required } from '@townhall/platform/service';
import { TicketingConfigSchema } from './config.js';
import { createTicketingDataSource, TICKETING_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfig(TicketingConfigSchema);
const logger = createLogger('ticketing-migrate', config.LOG_LEVEL);
const applied = await migrateSchema(
  createTicketingDataSource(required(config.DATABASE_URL, 'DATABASE_URL'), 1),
);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${TICKETING_SCHEMA} is up to date`,
);

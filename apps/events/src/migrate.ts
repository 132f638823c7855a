import 'reflect-metadata';
import { createLogger, loadConfig, migrateSchema, required } from '@townhall/platform/service';
import { EventsConfigSchema } from './config.js';
import { createEventsDataSource, EVENTS_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfig(EventsConfigSchema);
const logger = createLogger('events-migrate', config.LOG_LEVEL);
const applied = await migrateSchema(createEventsDataSource(required(config.DATABASE_URL, 'DATABASE_URL'), 1));
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${EVENTS_SCHEMA} is up to date`,
);

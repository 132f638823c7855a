import 'reflect-metadata';
import { createLogger, loadConfigOrExit } from '@townhall/platform/service';
import { EventsConfigSchema } from './config.js';
import { migrateEvents } from './service.js';
import { EVENTS_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfigOrExit(EventsConfigSchema.required({ DATABASE_URL: true }), 'events-migrate');
const logger = createLogger('events-migrate', config.LOG_LEVEL);
const applied = await migrateEvents(config.DATABASE_URL);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${EVENTS_SCHEMA} is up to date`,
);

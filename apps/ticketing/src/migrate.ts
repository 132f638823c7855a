import 'reflect-metadata';
import { createLogger, loadConfigOrExit } from '@townhall/platform/service';
import { TicketingConfigSchema } from './config.js';
import { migrateTicketing } from './service.js';
import { TICKETING_SCHEMA } from './data-source.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
const config = loadConfigOrExit(TicketingConfigSchema.required({ DATABASE_URL: true }), 'ticketing-migrate');
const logger = createLogger('ticketing-migrate', config.LOG_LEVEL);
const applied = await migrateTicketing(config.DATABASE_URL);
logger.info(
  { applied },
  applied.length ? `applied ${applied.length} migration(s)` : `schema ${TICKETING_SCHEMA} is up to date`,
);

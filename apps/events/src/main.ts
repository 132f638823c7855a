import 'reflect-metadata';
import { createLogger, loadConfigOrExit, openNatsTransport, runService } from '@townhall/platform/service';
import { EventsConfigSchema } from './config.js';
import { eventsService } from './service.js';

// Distributed mode: NATS and Postgres are required.
const config = loadConfigOrExit(
  EventsConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }),
  'events',
);
const logger = createLogger('events', config.LOG_LEVEL);
const service = await eventsService(config, logger);
await runService(service, await openNatsTransport('events', config.NATS_URL), {
  logger,
  probePort: config.PROBE_PORT,
  // off only to test recovery: domain events then wait in the outbox
  relay: config.OUTBOX_RELAY === 'on',
});

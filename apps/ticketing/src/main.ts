import 'reflect-metadata';
import { createLogger, loadConfigOrExit, openNatsTransport, runService } from '@townhall/platform/service';
import { TicketingConfigSchema } from './config.js';
import { ticketingService } from './service.js';

// Distributed mode: NATS and Postgres are required.
const config = loadConfigOrExit(
  TicketingConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }),
  'ticketing',
);
const logger = createLogger('ticketing', config.LOG_LEVEL);
const service = await ticketingService(config, logger);
await runService(service, await openNatsTransport('ticketing', config.NATS_URL), {
  logger,
  probePort: config.PROBE_PORT,
});

import 'reflect-metadata';
import {
  createLogger,
  loadConfig,
  openNatsTransport,
  required,
  runService,
} from '@townhall/platform/service';
import { TicketingConfigSchema } from './config.js';
import { ticketingService } from './service.js';

const config = loadConfig(TicketingConfigSchema);
const logger = createLogger('ticketing', config.LOG_LEVEL);
const service = await ticketingService(config, logger);
await runService(service, await openNatsTransport('ticketing', required(config.NATS_URL, 'NATS_URL')), {
  logger,
  probePort: config.PROBE_PORT,
});

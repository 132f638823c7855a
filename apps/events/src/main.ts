import 'reflect-metadata';
import {
  createLogger,
  loadConfig,
  openNatsTransport,
  required,
  runService,
} from '@townhall/platform/service';
import { EventsConfigSchema } from './config.js';
import { eventsService } from './service.js';

const config = loadConfig(EventsConfigSchema);
const logger = createLogger('events', config.LOG_LEVEL);
const service = await eventsService(config, logger);
await runService(service, await openNatsTransport('events', required(config.NATS_URL, 'NATS_URL')), {
  logger,
  probePort: config.PROBE_PORT,
  // off only to test recovery: domain events then wait in the outbox
  relay: config.OUTBOX_RELAY === 'on',
});

import 'reflect-metadata';
import {
  createLogger,
  loadConfig,
  openNatsTransport,
  required,
  runService,
} from '@townhall/platform/service';
import { EngagementConfigSchema } from './config.js';
import { engagementService } from './service.js';

const config = loadConfig(EngagementConfigSchema);
const logger = createLogger('engagement', config.LOG_LEVEL);
const service = await engagementService(config, logger);
await runService(service, await openNatsTransport('engagement', required(config.NATS_URL, 'NATS_URL')), {
  logger,
  probePort: config.PROBE_PORT,
});

import 'reflect-metadata';
import { createLogger, loadConfigOrExit, openNatsTransport, runService } from '@townhall/platform/service';
import { EngagementConfigSchema } from './config.js';
import { engagementService } from './service.js';

// Distributed mode: NATS and Postgres are required.
const config = loadConfigOrExit(
  EngagementConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }),
  'engagement',
);
const logger = createLogger('engagement', config.LOG_LEVEL);
const service = await engagementService(config, logger);
await runService(service, await openNatsTransport('engagement', config.NATS_URL), {
  logger,
  probePort: config.PROBE_PORT,
});

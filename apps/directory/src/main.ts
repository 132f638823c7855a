import 'reflect-metadata';
import { createLogger, loadConfigOrExit, openNatsTransport, runService } from '@townhall/platform/service';
import { DirectoryConfigSchema } from './config.js';
import { directoryService } from './service.js';

// Distributed mode: NATS and Postgres are required.
const config = loadConfigOrExit(
  DirectoryConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }),
  'directory',
);
const logger = createLogger('directory', config.LOG_LEVEL);
const service = await directoryService(config, logger);
await runService(service, await openNatsTransport('directory', config.NATS_URL), {
  logger,
  probePort: config.PROBE_PORT,
});

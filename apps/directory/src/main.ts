import 'reflect-metadata';
import {
  createLogger,
  loadConfig,
  openNatsTransport,
  required,
  runService,
} from '@townhall/platform/service';
import { DirectoryConfigSchema } from './config.js';
import { directoryService } from './service.js';

const config = loadConfig(DirectoryConfigSchema);
const logger = createLogger('directory', config.LOG_LEVEL);
const service = await directoryService(config, logger);
await runService(service, await openNatsTransport('directory', required(config.NATS_URL, 'NATS_URL')), {
  logger,
  probePort: config.PROBE_PORT,
});

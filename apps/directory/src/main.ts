import 'reflect-metadata';
import { createLogger, loadConfig, required, runNatsService } from '@townhall/platform/service';
import { DirectoryConfigSchema } from './config.js';
import { createDirectoryDataSource } from './data-source.js';
import { DirectoryModule } from './directory.module.js';

const config = loadConfig(DirectoryConfigSchema);
const logger = createLogger('directory', config.LOG_LEVEL);
const dataSource = createDirectoryDataSource(
  required(config.DATABASE_URL, 'DATABASE_URL'),
  config.DATABASE_POOL_SIZE,
);
await dataSource.initialize();

await runNatsService({
  name: 'directory',
  module: DirectoryModule.register(dataSource),
  natsUrl: required(config.NATS_URL, 'NATS_URL'),
  logger,
  probePort: config.PROBE_PORT,
  readiness: { database: async () => void (await dataSource.query('SELECT 1')) },
  onClose: () => dataSource.destroy(),
});

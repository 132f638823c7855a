import {
  domainService,
  openDataSource,
  type DomainService,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import { DirectoryConfigSchema, type DirectoryConfig } from './config.js';
import { createDirectoryDataSource, DIRECTORY_SCHEMA } from './data-source.js';
import { DirectoryModule } from './directory.module.js';

/** The directory service, whatever runs it (its own process, or standalone mode). */
async function defineDirectory(
  config: DirectoryConfig,
  _logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
  const dataSource = await openDataSource(createDirectoryDataSource, config);
  return {
    dataSource,
    outbox: {
      schema: DIRECTORY_SCHEMA,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      // off only to test recovery: domain events then wait in the outbox
      held: config.OUTBOX_RELAY === 'off',
    },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ relay }) => DirectoryModule.register(dataSource, relay),
  };
}

/** The directory service, as its process, its migrate command, standalone mode and its service tests run it. */
export const directory: DomainService<DirectoryConfig> = domainService({
  name: 'directory',
  schema: DIRECTORY_SCHEMA,
  configSchema: DirectoryConfigSchema,
  define: defineDirectory,
  dataSource: createDirectoryDataSource,
});

export { DirectoryConfigSchema, type DirectoryConfig } from './config.js';

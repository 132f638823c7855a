import {
  migrateSchema,
  openDataSource,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import type { DirectoryConfig } from './config.js';
import { createDirectoryDataSource } from './data-source.js';
import { DirectoryModule } from './directory.module.js';

/** The directory service, whatever runs it (its own process, or standalone mode). */
export async function directoryService(config: DirectoryConfig, _logger: Logger): Promise<ServiceDefinition> {
  const dataSource = await openDataSource(createDirectoryDataSource, config);
  return {
    name: 'directory',
    dataSource,
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: () => DirectoryModule.register(dataSource),
  };
}

/** Applies the directory schema's pending migrations (what `migrate.js` runs); returns their names. */
export function migrateDirectory(databaseUrl: string): Promise<string[]> {
  return migrateSchema(createDirectoryDataSource(databaseUrl, 1));
}

export { DirectoryConfigSchema, type DirectoryConfig } from './config.js';

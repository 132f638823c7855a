import { domainService, type DomainService } from '@townhall/platform/service';
import { DirectoryConfigSchema, type DirectoryConfig } from './config.js';
import { createDirectoryDataSource, DIRECTORY_SCHEMA } from './data-source.js';
import { DirectoryModule } from './directory.module.js';

/** The directory service, as its process, its migrate command, standalone mode and its service tests run it. */
export const directory: DomainService<DirectoryConfig> = domainService({
  name: 'directory',
  schema: DIRECTORY_SCHEMA,
  configSchema: DirectoryConfigSchema,
  dataSource: createDirectoryDataSource,
  module: (parts) => DirectoryModule.register({ ...parts, settings: {} }),
});

export { DirectoryConfigSchema, type DirectoryConfig } from './config.js';

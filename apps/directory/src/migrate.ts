import 'reflect-metadata';
import { loadConfigOrExit, runMigrateMain } from '@townhall/platform/service';
import { DirectoryConfigSchema, directory } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
await runMigrateMain(
  directory,
  loadConfigOrExit(DirectoryConfigSchema.required({ DATABASE_URL: true }), 'directory-migrate'),
);

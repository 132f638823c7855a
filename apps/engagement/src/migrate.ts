import 'reflect-metadata';
import { loadConfigOrExit, runMigrateMain } from '@townhall/platform/service';
import { EngagementConfigSchema, engagement } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
await runMigrateMain(
  engagement,
  loadConfigOrExit(EngagementConfigSchema.required({ DATABASE_URL: true }), 'engagement-migrate'),
);

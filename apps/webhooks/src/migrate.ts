import 'reflect-metadata';
import { loadConfigOrExit, runMigrateMain } from '@townhall/platform/service';
import { WebhooksConfigSchema, webhooks } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
await runMigrateMain(
  webhooks,
  loadConfigOrExit(WebhooksConfigSchema.required({ DATABASE_URL: true }), 'webhooks-migrate'),
);

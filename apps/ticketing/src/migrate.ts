import 'reflect-metadata';
import { loadConfigOrExit, runMigrateMain } from '@townhall/platform/service';
import { TicketingConfigSchema, ticketing } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
await runMigrateMain(
  ticketing,
  loadConfigOrExit(TicketingConfigSchema.required({ DATABASE_URL: true }), 'ticketing-migrate'),
);

import 'reflect-metadata';
import { loadConfigOrExit, runMigrateMain } from '@townhall/platform/service';
import { EventsConfigSchema, events } from './service.js';

/** The explicit migrate command (`npm run migrate`, or the Kubernetes Job). Apps never migrate at start. */
await runMigrateMain(
  events,
  loadConfigOrExit(EventsConfigSchema.required({ DATABASE_URL: true }), 'events-migrate'),
);

import './tracing.js';
import 'reflect-metadata';
import { loadConfigOrExit, runServiceMain } from '@townhall/platform/service';
import { EventsConfigSchema, events } from './service.js';

// Distributed mode: NATS and Postgres are required.
await runServiceMain(
  events,
  loadConfigOrExit(EventsConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }), 'events'),
);

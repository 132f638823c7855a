import './tracing.js';
import 'reflect-metadata';
import { loadConfigOrExit, runServiceMain } from '@townhall/platform/service';
import { TicketingConfigSchema, ticketing } from './service.js';

// Distributed mode: NATS and Postgres are required.
await runServiceMain(
  ticketing,
  loadConfigOrExit(TicketingConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }), 'ticketing'),
);

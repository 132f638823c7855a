import './tracing.js';
import 'reflect-metadata';
import { loadConfigOrExit, runServiceMain } from '@townhall/platform/service';
import { EngagementConfigSchema, engagement } from './service.js';

// Distributed mode: NATS and Postgres are required.
await runServiceMain(
  engagement,
  loadConfigOrExit(EngagementConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }), 'engagement'),
);

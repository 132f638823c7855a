import './tracing.js';
import 'reflect-metadata';
import { loadConfigOrExit, runServiceMain } from '@townhall/platform/service';
import { WebhooksConfigSchema, webhooks } from './service.js';

// Distributed mode: NATS and Postgres are required.
await runServiceMain(
  webhooks,
  loadConfigOrExit(WebhooksConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }), 'webhooks'),
);

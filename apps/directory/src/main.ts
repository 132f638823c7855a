import './tracing.js';
import 'reflect-metadata';
import { loadConfigOrExit, runServiceMain } from '@townhall/platform/service';
import { DirectoryConfigSchema, directory } from './service.js';

// Distributed mode: NATS and Postgres are required.
await runServiceMain(
  directory,
  loadConfigOrExit(DirectoryConfigSchema.required({ NATS_URL: true, DATABASE_URL: true }), 'directory'),
);

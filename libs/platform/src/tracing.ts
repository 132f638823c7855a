// The first import of every app's main.ts (its own `tracing.ts`): OpenTelemetry must be in place
// before anything loads the Postgres driver, so this entry point imports nothing that does.
export * from './observability/tracing.js';

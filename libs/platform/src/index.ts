// What every app needs, the gateway included. Service-only parts (TypeORM, the Nest
// microservice host) live in '@townhall/platform/service' so that the gateway does not
// load them: TypeORM alone is 30 MB of resident memory.
export * from './config.js';
export * from './logger.js';
export * from './service-client.js';
export * from './nats-service-client.js';
export * from './nats-connection.js';
export * from './nats-authorization.js';
export * from './bus-access.js';
export * from './probes.js';
export * from './graceful-stop.js';
export * from './observability/index.js';
// Standalone mode hands the gateway its broker and event log: their types only, which load nothing.
export type { InProcessBroker } from './transport/in-process-broker.js';
export type { InProcessEventLog } from './transport/in-process-event-log.js';

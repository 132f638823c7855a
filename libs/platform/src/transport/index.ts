export * from './service-transport.js';
export * from './nats-transport.js';
export * from './in-process-broker.js';
export * from './in-process-event-log.js';
export * from './in-process-transport.js';

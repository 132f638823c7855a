// Everything a domain service uses: the common platform plus the parts only services need.
export * from './index.js';
export * from './handle.js';
export * from './remote-error.filter.js';
export * from './database.js';
export * from './database-notices.js';
export * from './sql-functions.js';
export * from './database-faults.js';
export * from './prepared-statement.js';
export * from './service-host.js';
export * from './domain-module.js';
export * from './discovery/index.js';
export * from './outbox/index.js';
export * from './transport/index.js';
// The classes themselves, over the types alone that '@townhall/platform' names for the gateway.
export { InProcessBroker, InProcessEventLog } from './transport/index.js';

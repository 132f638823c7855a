// Everything here is free of `node:` imports, so the SDK can use it in a browser as well.
export * from './errors.js';
export * from './requirements.js';
export * from './payload.js';
export * from './ledger-check.js';
export * from './facilitator.js';
export * from './amounts.js';
export * from './solana-clusters.js';

export * from './metrics.js';
export * from './message-interceptor.js';

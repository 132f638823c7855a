export * from './request-context.js';
export * from './metrics.js';
export * from './message-interceptor.js';

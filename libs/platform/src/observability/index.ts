export * from './live-heap.js';
export * from './metrics.js';
export * from './message-interceptor.js';
export * from './tracing.js';

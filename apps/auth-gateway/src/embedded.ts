// What standalone mode needs to run the gateway inside its own process; main.ts is the
// gateway run alone on NATS and Redis.
export { createGateway, type GatewayDependencies } from './gateway.js';
export {
  GatewayConfigSchema,
  audienceOf,
  liveStreamSettingsOf,
  serverTimeoutsOf,
  type GatewayConfig,
} from './config.js';
export { MemoryNonceStore, RedisNonceStore, type NonceStore } from './auth/nonce-store.js';
export { connectRedis } from './auth/redis.js';
export { startLiveStream, type LiveStream } from './live/live-stream.js';
export { startInProcessLiveStream } from './live/in-process-live-stream.js';

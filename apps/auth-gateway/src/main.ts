import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { SignatureVerifier } from '@townhall/auth';
import {
  collectProcessMetrics,
  createLogger,
  loadConfigOrExit,
  NatsServiceClient,
  startProbeServer,
  stopGracefullyOnSignal,
  type ReadinessCheck,
} from '@townhall/platform';
import { RedisNonceStore } from './auth/nonce-store.js';
import { connectRedis } from './auth/redis.js';
import { audienceOf, GatewayConfigSchema, liveStreamSettingsOf, serverTimeoutsOf } from './config.js';
import { createGateway } from './gateway.js';
import { startLiveStream } from './live/live-stream.js';

// Distributed mode: NATS and Redis are required.
const config = loadConfigOrExit(
  GatewayConfigSchema.required({ NATS_URL: true, REDIS_URL: true }),
  'auth-gateway',
);
const logger = createLogger('auth-gateway', config.LOG_LEVEL);
const audience = audienceOf(config);

const nats = await connect({
  servers: config.NATS_URL,
  name: 'auth-gateway',
  maxReconnectAttempts: -1,
  waitOnFirstConnect: true,
  // Capturing a stack per request costs a third of the client's time per request.
  noAsyncTraces: true,
});

const redis = connectRedis(config.REDIS_URL, logger);

// One JetStream consumer per gateway process feeds every live-stream client it serves.
const liveStream = startLiveStream({
  nc: nats,
  logger,
  ...liveStreamSettingsOf(config),
});

const readiness: Record<string, ReadinessCheck> = {
  redis: async () => void (await redis.ping()),
  nats: async () => {
    if (nats.isClosed()) throw new Error('closed');
    await nats.flush();
  },
};
collectProcessMetrics();
// Prometheus and the probes on the operators' port as well (the public port has /healthz, /readyz).
const probes =
  config.PROBE_PORT === undefined ? undefined : await startProbeServer(config.PROBE_PORT, readiness);

const app = await createGateway({
  audience,
  bodyLimit: config.BODY_LIMIT_BYTES,
  logger,
  services: new NatsServiceClient(nats, config.SERVICE_TIMEOUT_MS),
  nonces: new RedisNonceStore(redis, config.TOWNHALL_ENV),
  verifier: new SignatureVerifier(),
  readiness,
  liveStream,
  // Counted in the same Redis as the nonces: every replica spends one budget per agent and per IP.
  rateLimits: { config, redis },
  trustProxy: config.TRUST_PROXY,
  serverTimeouts: serverTimeoutsOf(config),
});
await app.listen({ port: config.PORT, host: config.HOST });
logger.info({ url: `http://127.0.0.1:${config.PORT}`, audience }, 'auth-gateway is listening');

stopGracefullyOnSignal('auth-gateway', logger, async () => {
  await app.close(); // stops accepting, ends live streams, lets in-flight requests finish
  await liveStream.stop();
  await nats.drain();
  if (redis.isOpen) await redis.close();
  probes?.close();
});

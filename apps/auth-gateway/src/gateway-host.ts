import { connect } from '@nats-io/transport-node';
import { SignatureVerifier } from '@townhall/auth';
import {
  NATS_RECONNECT,
  natsConnectionOptions,
  NatsServiceClient,
  type InProcessBroker,
  type InProcessEventLog,
  type Logger,
  type ReadinessCheck,
  type ServiceClient,
} from '@townhall/platform';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RedisClientType } from 'redis';
import { MemoryNonceStore, RedisNonceStore, type NonceStore } from './auth/nonce-store.js';
import { MemorySeenKeys, RedisSeenKeys } from './auth/seen-keys.js';
import { keyDirectoriesOf } from './auth/key-directory.js';
import { EvictionPolicyCheck } from './auth/redis-eviction-policy.js';
import { connectRedis } from './auth/redis.js';
import { audienceOf, liveStreamSettingsOf, serverTimeoutsOf, type GatewayConfig } from './config.js';
import { createGateway } from './gateway.js';
import {
  inFlightMsOf,
  MemoryIdempotencyStore,
  RedisIdempotencyStore,
} from './idempotency/idempotency-store.js';
import { startInProcessLiveStream } from './live/in-process-live-stream.js';
import { startLiveStream, type LiveStream } from './live/live-stream.js';
import { PresenceReporter } from './live/presence-reporter.js';

/**
 * Everything the gateway exchanges with the services, behind one seam (beside the services'
 * ServiceTransport): its requests to them, the domain events its live streams follow, and what
 * /readyz checks of that. NATS and JetStream in its own process (and in standalone mode with
 * NATS_URL); the process's InProcessBroker and InProcessEventLog in standalone mode.
 */
export interface GatewayTransport {
  services: ServiceClient;
  liveStream: LiveStream;
  readiness: Record<string, ReadinessCheck>;
  /** Ends the live streams' feed, then lets what is in flight to NATS finish. */
  close(): Promise<void>;
}

/** The gateway on NATS: one connection for requests and for its one JetStream consumer. */
export async function natsGatewayTransport(
  natsUrl: string,
  config: GatewayConfig,
  logger: Logger,
): Promise<GatewayTransport> {
  const nats = await connect({
    ...natsConnectionOptions('auth-gateway', { ...config, NATS_URL: natsUrl }),
    name: 'auth-gateway',
    ...NATS_RECONNECT,
    waitOnFirstConnect: true,
    // Capturing a stack per request costs a third of the client's time per request.
    noAsyncTraces: true,
  });
  // One JetStream consumer per gateway process feeds every live-stream client it serves.
  const liveStream = startLiveStream({ nc: nats, logger, ...liveStreamSettingsOf(config) });
  return {
    services: new NatsServiceClient(nats, config.SERVICE_TIMEOUT_MS, logger),
    liveStream,
    readiness: {
      nats: async () => {
        if (nats.isClosed()) throw new Error('closed');
        await nats.flush();
      },
    },
    close: async () => {
      await liveStream.stop();
      await nats.drain();
    },
  };
}

/** The gateway in standalone mode's own process: the services' broker and event log. */
export function inProcessGatewayTransport(
  broker: InProcessBroker,
  eventLog: InProcessEventLog,
  config: GatewayConfig,
): GatewayTransport {
  const liveStream = startInProcessLiveStream(eventLog, liveStreamSettingsOf(config));
  return {
    services: broker.client(config.SERVICE_TIMEOUT_MS),
    liveStream,
    readiness: {},
    close: () => liveStream.stop(),
  };
}

/** Where nonces are claimed (and rate limits counted): Redis, shared by every replica, or this process's memory. */
export interface Nonces {
  store: NonceStore;
  redis: RedisClientType | undefined;
  readiness: Record<string, ReadinessCheck>;
}

/**
 * The nonces' store. With Redis, once its eviction policy is known to keep them (a ConfigError,
 * naming the setting, for one that may evict them: the start is refused); a Redis not reachable
 * yet is checked when it comes, and until then and while refused, signed requests fail closed.
 */
export async function openNonces(
  redisUrl: string | undefined,
  config: GatewayConfig,
  logger: Logger,
): Promise<Nonces> {
  if (!redisUrl)
    return {
      store: new MemoryNonceStore(Date.now, config.MEMORY_NONCES_MAX),
      redis: undefined,
      readiness: {},
    };
  const redis = connectRedis(redisUrl, logger);
  const policy = new EvictionPolicyCheck(redis, config.REDIS_MAXMEMORY_POLICY, logger);
  try {
    await policy.atStart();
  } catch (error) {
    await redis.close().catch(() => undefined);
    throw error;
  }
  const refusal = () => policy.refusal;
  const store = new RedisNonceStore(redis, config.TOWNHALL_ENV, refusal);
  return {
    store,
    redis,
    readiness: {
      redis: async () => {
        await store.ping();
        const refused = refusal();
        if (refused) throw new Error(refused);
      },
    },
  };
}

export interface RunningGateway {
  app: NestFastifyApplication;
  /** The port it listens on (the configured one, or the one the system chose for 0). */
  port: number;
  /** Every readiness check it answers /readyz with (also what a probe port serves). */
  readiness: Record<string, ReadinessCheck>;
  /** No new requests, live streams ended, in-flight requests finished; then the transport and Redis. */
  stop(): Promise<void>;
}

/**
 * The gateway, built and listening, the same way in its own process (main.ts) and in standalone
 * mode: only the transport, the nonces and extra readiness checks (standalone's databases) differ.
 */
export async function startGateway(options: {
  config: GatewayConfig;
  transport: GatewayTransport;
  nonces: Nonces;
  logger: Logger;
  readiness?: Record<string, ReadinessCheck>;
  /** Called right before the listen: lets go of a port held for it since the origin was settled. */
  beforeListen?: () => void;
}): Promise<RunningGateway> {
  const { config, transport, nonces, logger } = options;
  const readiness = { ...options.readiness, ...transport.readiness, ...nonces.readiness };
  const audience = audienceOf(config);
  const app = await createGateway({
    audience,
    bodyLimit: config.BODY_LIMIT_BYTES,
    logger,
    services: transport.services,
    nonces: nonces.store,
    verifier: new SignatureVerifier(),
    // Beside the nonces: every replica resolves the thumbprints any of them has seen.
    seenKeys: nonces.redis
      ? new RedisSeenKeys(nonces.redis, config.TOWNHALL_ENV, logger, config.SEEN_KEYS_MAX)
      : new MemorySeenKeys(config.SEEN_KEYS_MAX),
    keyDirectories: keyDirectoriesOf(config, logger),
    readiness,
    liveStream: transport.liveStream,
    // Counted in the nonces' Redis: every replica spends one budget per agent and per IP (or in memory).
    rateLimits: { config, redis: nonces.redis },
    addressLimits: { config, redis: nonces.redis },
    trustProxy: config.TRUST_PROXY,
    readCacheMaxAgeMs: config.READ_CACHE_MAX_AGE_MS,
    serverTimeouts: serverTimeoutsOf(config),
    natsUrl: config.NATS_URL,
    // In the nonces' Redis (its connection): a key is claimed once across every replica.
    idempotency: {
      store: nonces.redis
        ? new RedisIdempotencyStore(
            nonces.redis,
            config.TOWNHALL_ENV,
            audience,
            config.IDEMPOTENCY_KEYS_PER_AGENT,
          )
        : new MemoryIdempotencyStore({ keysPerAgent: config.IDEMPOTENCY_KEYS_PER_AGENT }),
      inFlightMs: inFlightMsOf(config.SERVICE_TIMEOUT_MS),
      keysPerAgent: config.IDEMPOTENCY_KEYS_PER_AGENT,
    },
  });
  // Who is on this process's live streams, for attendance (live/presence-reporter.ts): from the
  // first stream on; its ticks once the gateway listens.
  const presence = new PresenceReporter({
    hub: transport.liveStream.hub,
    services: transport.services,
    intervalMs: config.PRESENCE_INTERVAL_MS,
    logger,
  });
  try {
    options.beforeListen?.();
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await app.close().catch(() => undefined); // e.g. the port is taken: nothing stays open
    await presence.stop();
    throw error;
  }
  presence.start();
  const address = app.getHttpServer().address();
  return {
    app,
    port: typeof address === 'object' && address ? address.port : config.PORT,
    readiness,
    stop: async () => {
      await app.close(); // stops accepting, ends live streams, lets in-flight requests finish
      await presence.stop(); // every event empty, before the transport closes
      await transport.close();
      await nonces.store.close();
    },
  };
}

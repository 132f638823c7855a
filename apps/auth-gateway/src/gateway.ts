import { CARD_READS, CARD_TOPICS, CardReads } from './read-cache/card-reads.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { SignatureVerifier } from '@townhall/auth';
import { NestPinoLogger, type Logger, type ReadinessCheck, type ServiceClient } from '@townhall/platform';
import type { KeyDirectories } from './auth/key-directory.js';
import type { NonceStore } from './auth/nonce-store.js';
import type { SeenKeys } from './auth/seen-keys.js';
import { SERVER_TIMEOUT_DEFAULTS, type ServerTimeouts } from './config.js';
import { installSignedRequests } from './auth/signed-requests.js';
import { AccessLog } from './access-log.js';
import { GatewayModule } from './gateway.module.js';
import { installGracefulClose } from './graceful-close.js';
import { installHttpMetrics } from './http-metrics.js';
import { inFlightMsOf, MemoryIdempotencyStore } from './idempotency/idempotency-store.js';
import { installIdempotentRequests, type IdempotencyOptions } from './idempotency/idempotent-requests.js';
import { LIVE_STREAM, type LiveStream } from './live/live-stream.js';
import { clientErrorHandler, routerErrorHandler } from './problem/framework-errors.js';
import { ProblemFilter } from './problem/problem.filter.js';
import { installQueryPolicy } from './input/query-policy.js';
import { installRateLimits } from './rate-limit/rate-limited-requests.js';
import { installCachedEventReads } from './read-cache/cached-event-reads.js';
import type { RateLimitOptions } from './rate-limit/rate-limits.js';
import { AddressLimits, type AddressLimitOptions } from './rate-limit/address-limits.js';
import { installRequestTracing } from './request-tracing.js';
import { CachedReadiness } from './health/cached-readiness.js';
import { publicProbesServer } from './health/public-probes.js';
import { requestIdFrom } from './request-context.js';
import { siteOf } from './site/site.js';

export interface GatewayDependencies {
  audience: string;
  bodyLimit: number;
  logger: Logger;
  services: ServiceClient;
  nonces: NonceStore;
  verifier: SignatureVerifier;
  /** The agents seen signing, by key thumbprint: an RFC 9421 keyid may be one (auth/seen-keys.ts). */
  seenKeys?: SeenKeys;
  /** Signature-Agent key directories (auth/key-directory.ts); without them, seen keys only. */
  keyDirectories?: KeyDirectories | undefined;
  readiness: Record<string, ReadinessCheck>;
  now?: () => number;
  /** Serves GET /events/{id}/live; without it (no NATS) that route answers 503. */
  liveStream?: LiveStream;
  /**
   * The longest a public event read is served from the gateway's cache (READ_CACHE_MAX_AGE_MS);
   * 0 or no live stream (nothing would invalidate it): no cache.
   */
  readCacheMaxAgeMs?: number;
  /** Rate limits (docs/product.md "Limits"); without them nothing is limited. */
  rateLimits?: RateLimitOptions;
  /**
   * What a client address may spend on signed requests before any verify: a bucket, and a block
   * after failed verifications (rate-limit/address-limits.ts); without it neither applies.
   */
  addressLimits?: AddressLimitOptions;
  /** Fastify's `trustProxy` (TRUST_PROXY): whose X-Forwarded-For names the client IP. */
  trustProxy?: boolean | string[];
  /** The HTTP server's timeouts (config.ts serverTimeoutsOf); SERVER_TIMEOUT_DEFAULTS without them. */
  serverTimeouts?: ServerTimeouts;
  /**
   * Where Idempotency-Keys are claimed and answers kept (idempotency/): Redis in every deployment
   * with one; without it, this process's memory.
   */
  idempotency?: IdempotencyOptions;
  /** NATS_URL, which GET /asyncapi.json names by host and port only; none in standalone mode. */
  natsUrl?: string | undefined;
}

/**
 * Builds the HTTP gateway around its dependencies, the same way in every mode: the NATS
 * apps, standalone mode and tests differ only in what they pass in. It composes the API
 * (GatewayModule and the hooks below) with the site (site/: pages for people, the docs page and
 * the API documents), which reads the API's routes; the API knows nothing of the site.
 */
export async function createGateway(deps: GatewayDependencies): Promise<NestFastifyApplication> {
  // The public probes' answer: one run of the checks at most a second old (health/).
  const readiness = new CachedReadiness(deps.readiness);
  const root = GatewayModule.register(deps.services, readiness);
  // Signed card reads from memory, kept current by the directory's domain events (read-cache/).
  const cardReads =
    deps.liveStream && deps.readCacheMaxAgeMs
      ? new CardReads({ maxAgeMs: deps.readCacheMaxAgeMs })
      : undefined;
  if (cardReads) deps.liveStream?.hub.observeTopic(CARD_TOPICS, (agentId) => cardReads.changed(agentId));
  const site = siteOf({ audience: deps.audience, natsUrl: deps.natsUrl, api: root.controllers ?? [] });
  const adapter = new FastifyAdapter({
    bodyLimit: deps.bodyLimit,
    loggerInstance: deps.logger,
    logController: new AccessLog(),
    genReqId: (request: IncomingMessage) => requestIdFrom(request.headers['x-request-id'], randomUUID),
    // Our own 503 while closing (below), as problem+json like every other error.
    return503OnClosing: false,
    trustProxy: deps.trustProxy ?? false,
    // Errors before any route runs are problem+json too (problem/framework-errors.ts), or a page
    // on a page's path (site/pages/page-response.ts).
    frameworkErrors: site.routerErrors(routerErrorHandler(deps.audience)),
    clientErrorHandler: clientErrorHandler(deps.audience),
    ...serverTimeoutOptions(deps.serverTimeouts ?? SERVER_TIMEOUT_DEFAULTS),
    // The public probes are answered by the server itself, before Fastify (health/public-probes.ts).
    serverFactory: publicProbesServer(readiness),
  });
  root.controllers = [...(root.controllers ?? []), ...site.controllers];
  root.providers = [
    ...(root.providers ?? []),
    ...site.providers,
    // The live stream is optional (in-process tests run without NATS): its provider is added here,
    // where the dependency arrives, and LiveController (and the watch page) take it as @Optional().
    ...(deps.liveStream ? [{ provide: LIVE_STREAM, useValue: deps.liveStream }] : []),
    ...(cardReads ? [{ provide: CARD_READS, useValue: cardReads }] : []),
  ];
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    bodyParser: false,
    abortOnError: false,
    logger: new NestPinoLogger(deps.logger),
  });
  const fastify = app.getHttpAdapter().getInstance();

  fastify.addHook('preClose', async () => readiness.close());
  installRequestTracing(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installGracefulClose(fastify, deps.audience);
  installHttpMetrics(fastify, deps.liveStream?.hub);
  const rateLimits = deps.rateLimits && installRateLimits(fastify, deps.rateLimits, deps.audience);
  const addressLimits =
    deps.addressLimits &&
    new AddressLimits(
      deps.addressLimits.config,
      // As the rate limits': environments and deployments that share a Redis stay apart.
      `townhall:${deps.addressLimits.config.TOWNHALL_ENV}:ratelimit:${deps.audience}`,
      deps.addressLimits.redis,
    );
  installSignedRequests(fastify, { ...deps, rateLimits, addressLimits });
  // After the rate limits (a refused read still counts), before the read cache (keyed on its result).
  installQueryPolicy(fastify, deps.audience);
  // After the rate limits: a cached read still counts against its client's quota.
  if (deps.liveStream && deps.readCacheMaxAgeMs)
    installCachedEventReads(fastify, deps.liveStream.hub, { maxAgeMs: deps.readCacheMaxAgeMs });
  // /docs, and the pages for people answering their problems as pages.
  site.install(fastify);
  // Last: its preHandler runs once the caller is verified, its onSend keeps the answer as sent.
  installIdempotentRequests(
    fastify,
    deps.idempotency ?? { store: new MemoryIdempotencyStore(), inFlightMs: inFlightMsOf(5_000) },
    deps.audience,
  );
  // Open SSE responses never finish on their own: end them first, or app.close() would wait
  // for them forever. Clients see a normal end and reconnect (elsewhere) with Last-Event-ID.
  const live = deps.liveStream;
  if (live) fastify.addHook('preClose', async () => live.hub.disconnectAll());

  // Errors Fastify raises itself (body limit, media type) and unknown routes reach
  // ProblemFilter through Nest's error and not-found handlers, like every other error.
  app.useGlobalFilters(new ProblemFilter(deps.audience));
  return app;
}

/**
 * The server's timeouts as Node and Fastify take them (docs/gateway.md "Limits of one client"), so that
 * a client sending its request slowly is cut (408 request.timeout) and an idle one closed; none
 * applies to a live stream once its request is in (sse-connection.ts leaves the idle one too).
 * Node looks for late requests on a timer, every 30 s by default: four times per headers
 * timeout here, at most once a second, so a slow client is cut soon after its time.
 */
function serverTimeoutOptions(timeouts: ServerTimeouts) {
  return {
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(timeouts.headersMs / 4))),
    },
    // Fastify sets these three on the server it creates, over what `http` says.
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleMs,
  };
}

import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, metricsRegistry } from '@townhall/platform';
import type { FastifyInstance } from 'fastify';
import type { LiveHub } from './live/live-hub.js';

/** Requests by route pattern (never the raw path: ids would explode the series), method and status. */
export const httpRequestDuration = new Histogram({
  name: 'townhall_http_request_duration_seconds',
  help: 'HTTP requests served by the gateway, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

/** Signed requests refused by the guard, by problem code (auth.signature_invalid, ...). */
export const authFailures = new Counter({
  name: 'townhall_auth_failures_total',
  help: 'Signed requests refused by the gateway, by problem code',
  labelNames: ['code'] as const,
  registers: [metricsRegistry],
});

/**
 * Ed25519 signature checks the gateway ran (verifier.verify), by outcome: what strangers make it
 * spend. A flood of forged signatures from one address stops growing this once the address is
 * blocked (rate-limit/address-limits.ts).
 */
export const signatureVerifications = new Counter({
  name: 'townhall_signature_verifications_total',
  help: 'Signatures the gateway verified, by outcome (verified, refused)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** Requests refused before their signature was looked at, by why (rate, blocked). */
export const addressRefusals = new Counter({
  name: 'townhall_address_refusals_total',
  help: 'Signed requests refused per client address before any verify, by reason (rate, blocked)',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

/** Requests answered 429 rate.limited, by the limit they hit (writes per agent, reads per IP or agent). */
export const rateLimited = new Counter({
  name: 'townhall_rate_limited_total',
  help: 'Requests refused with 429 rate.limited, by limit',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

const liveHubs = new Set<LiveHub>();
export const liveSubscribers = new Gauge({
  name: 'townhall_live_subscribers',
  help: 'Clients connected to live streams (GET /events/{id}/live) on this gateway',
  registers: [metricsRegistry],
  collect() {
    let count = 0;
    for (const hub of liveHubs) count += hub.subscriberCount;
    this.set(count);
  },
});

/** Observes every response; counts the live-stream clients of `hub`. */
export function installHttpMetrics(fastify: FastifyInstance, hub: LiveHub | undefined): void {
  if (hub) {
    liveHubs.add(hub);
    fastify.addHook('onClose', async () => void liveHubs.delete(hub));
  }
  fastify.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1_000,
    );
  });
}

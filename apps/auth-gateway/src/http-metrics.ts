import { counter, gauge, histogram } from '@townhall/platform';
import type { FastifyInstance } from 'fastify';
import type { LiveHub } from './live/live-hub.js';

/** Requests by route pattern (never the raw path: ids would explode the series), method and status. */
export const httpRequestDuration = histogram(
  'townhall_http_request_duration_seconds',
  'HTTP requests served by the gateway, by method, route pattern and status',
  { labelNames: ['method', 'route', 'status'] },
);

/** Signed requests refused by the guard, by problem code (auth.signature_invalid, ...). */
export const authFailures = counter(
  'townhall_auth_failures_total',
  'Signed requests refused by the gateway, by problem code',
  ['code'],
);

/**
 * Ed25519 signature checks the gateway ran (verifier.verify), by outcome: what strangers make it
 * spend. A flood of forged signatures from one address stops growing this once the address is
 * blocked (rate-limit/address-limits.ts).
 */
export const signatureVerifications = counter(
  'townhall_signature_verifications_total',
  'Signatures the gateway verified, by outcome (verified, refused)',
  ['outcome'],
);

/** Requests refused before their signature was looked at, by why (rate, blocked). */
export const addressRefusals = counter(
  'townhall_address_refusals_total',
  'Signed requests refused per client address before any verify, by reason (rate, blocked)',
  ['reason'],
);

/** Requests answered 429 rate.limited, by the limit they hit (writes per agent, reads per IP or agent). */
export const rateLimited = counter(
  'townhall_rate_limited_total',
  'Requests refused with 429 rate.limited, by limit',
  ['kind'],
);

const liveHubs = new Set<LiveHub>();
export const liveSubscribers = gauge(
  'townhall_live_subscribers',
  'Clients connected to live streams (GET /events/{id}/live) on this gateway',
  {
    collect() {
      let count = 0;
      for (const hub of liveHubs) count += hub.subscriberCount;
      this.set(count);
    },
  },
);

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

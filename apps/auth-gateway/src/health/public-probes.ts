import type { FastifyInstance } from 'fastify';
import type { CachedReadiness } from './cached-readiness.js';

const PROBES = new Set(['/healthz', '/readyz']);
const ALIVE = JSON.stringify({ status: 'ok' });
const READY = JSON.stringify({ ready: true });
const NOT_READY = JSON.stringify({ ready: false });

/**
 * The public probes answered first thing, before any other hook (tracing, limits, the query
 * policy, the read cache) and whatever their query: a flood of them then costs the gateway the
 * HTTP exchange and nothing else, and the answer is the cached one (CachedReadiness). The query
 * of a probe is ignored rather than refused: load balancers add their own, and the answer does
 * not depend on it. HealthController describes the same two routes for the API document.
 */
export function installPublicProbes(fastify: FastifyInstance, readiness: CachedReadiness): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route === undefined || !PROBES.has(route) || request.method !== 'GET') return;
    if (route === '/healthz') return reply.code(200).type('application/json').send(ALIVE);
    const ready = await readiness.ready();
    return reply
      .code(ready ? 200 : 503)
      .type('application/json')
      .send(ready ? READY : NOT_READY);
  });
}

/** Whether a route is one of the public probes, /healthz and /readyz. */
export function isPublicProbe(route: string | undefined): boolean {
  return route !== undefined && PROBES.has(route);
}

/** Whether a request is a public probe answered ok: not worth a log line each (a prober asks every few seconds). */
export function isQuietProbe(route: string | undefined, status: number): boolean {
  return route !== undefined && PROBES.has(route) && status === 200;
}

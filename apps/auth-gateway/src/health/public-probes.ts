import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { CachedReadiness } from './cached-readiness.js';

const PROBES = new Set(['/healthz', '/readyz']);
const ALIVE = JSON.stringify({ status: 'ok' });
const READY = JSON.stringify({ ready: true });
const NOT_READY = JSON.stringify({ ready: false });

/** The server options Fastify hands its serverFactory, as far as the public probes' server uses them. */
interface ServerOptions {
  http?: object;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
}

/**
 * The gateway's HTTP server (Fastify's `serverFactory`), which answers the public probes itself,
 * before Fastify sees them: a GET of /healthz or /readyz, whatever its query, costs the HTTP
 * exchange and nothing else (no routing, hooks, tracing, limits or access log), and /readyz
 * answers from the cached run of the checks (CachedReadiness; not ready once the gateway is
 * closing). So a flood of probes cannot slow the requests that share the process: in standalone,
 * the gateway, every service and PGlite share one event loop. The query of a probe is ignored
 * rather than refused: load balancers add their own, and the answer does not depend on it.
 * HealthController describes the same two routes for the API document. Every other request goes
 * to Fastify, on a server with the timeouts Fastify would have set on its own.
 */
export function publicProbesServer(readiness: CachedReadiness) {
  return (
    fastify: (request: IncomingMessage, response: ServerResponse) => void,
    options: ServerOptions,
  ): Server => {
    const server = createServer(options.http ?? {}, (request, response) => {
      if (!answerProbe(request, response, readiness)) fastify(request, response);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout ?? 0);
    return server;
  };
}

/** Answers a public probe and says so; leaves any other request alone. */
function answerProbe(
  request: IncomingMessage,
  response: ServerResponse,
  readiness: CachedReadiness,
): boolean {
  if (request.method !== 'GET') return false;
  const url = request.url ?? '';
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  if (!PROBES.has(path)) return false;
  if (path === '/healthz') send(response, 200, ALIVE);
  else
    readiness.ready().then(
      (ready) => send(response, ready ? 200 : 503, ready ? READY : NOT_READY),
      () => send(response, 503, NOT_READY),
    );
  return true;
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  response.end(body);
}

/** Whether a route is one of the public probes, /healthz and /readyz. */
export function isPublicProbe(route: string | undefined): boolean {
  return route !== undefined && PROBES.has(route);
}

import { DomainError, parseOrThrow } from '@townhall/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sendProblem, toDomainError } from '../problem/problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The query string a public read accepts (routes/route.decorator.ts `mountRoute` sets the
     * route's documented query, or NO_QUERY; a page states its own). Any other parameter is
     * refused (installQueryPolicy).
     */
    query?: z.ZodObject;
  }
  interface FastifyRequest {
    /** A public read's query, parsed by its route's schema: what its cache key is made of. */
    knownQuery?: Record<string, unknown>;
  }
}

/** The query of a route that takes none. */
export const NO_QUERY = z.strictObject({});

/**
 * The one query rule of public reads (every GET that is not signed-only: the API's reads, the
 * calendar file, the pages): a parameter its route does not declare is refused with 400
 * `request.unknown_parameter` naming it (a page redirects, 301, to its address without it), and the declared ones must parse (400
 * `validation.failed`), before the read cache or any service sees the request. So no parameter
 * can make a read new to the cache (a cache key is the route's parsed fields, not the raw URL:
 * `readKeyOf`), and a client that mistypes one is told instead of silently ignored. Runs after
 * the rate limits, which count the refused requests too.
 */
export function installQueryPolicy(fastify: FastifyInstance, audience: string): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const { query: schema, signed, page } = request.routeOptions.config;
    if (!schema || signed) return;
    // A page's link shared with parameters of its own (utm_source=...) still opens: the browser
    // is sent, once and for good, to the page's one address, which the cache keys as any other.
    if (page !== undefined && unknownParameterOf(schema, request.query) !== undefined)
      return reply.redirect(addressWithout(request.url, schema), 301);
    try {
      request.knownQuery = knownQueryOf(schema, request.query);
    } catch (error) {
      const known = toDomainError(error);
      if (!known) throw error;
      return sendProblem(request, reply, known, audience);
    }
  });
}

/** The query parsed by `schema`; 400 for a parameter it does not declare, or a value it refuses. */
export function knownQueryOf(schema: z.ZodObject, query: unknown): Record<string, unknown> {
  const fields = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  const unknown = unknownParameterOf(schema, fields);
  if (unknown !== undefined) {
    const declared = Object.keys(schema.shape);
    const allowed = declared.length > 0 ? `it takes ${declared.join(', ')}` : 'it takes none';
    throw new DomainError(
      'request.unknown_parameter',
      `Unknown query parameter ${JSON.stringify(unknown)}: ${allowed}`,
      [{ field: unknown, message: 'is not a parameter of this route' }],
    );
  }
  return parseOrThrow(schema, { ...fields }) as Record<string, unknown>;
}

/** The first parameter of `query` that `schema` does not declare. */
function unknownParameterOf(schema: z.ZodObject, query: unknown): string | undefined {
  const fields = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  return Object.keys(fields).find((key) => !Object.hasOwn(schema.shape, key));
}

/** `url` with only the parameters `schema` declares, in their order and spelling. */
function addressWithout(url: string, schema: z.ZodObject): string {
  const start = url.indexOf('?');
  const path = start === -1 ? url : url.slice(0, start);
  const kept = new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
  for (const key of [...kept.keys()]) if (!Object.hasOwn(schema.shape, key)) kept.delete(key);
  const query = kept.toString();
  return query === '' ? path : `${path}?${query}`;
}

/**
 * A public read's key in the gateway's caches: its route, its path parameters and its parsed
 * query (installQueryPolicy), each field in one order and one spelling, so `?limit=10&cursor=x`,
 * `?cursor=x&limit=10`, `?limit=010&cursor=%78` and, with limit's default, `?cursor=x&limit=20`
 * vs `?cursor=x` are each one entry.
 */
export function readKeyOf(request: FastifyRequest): string {
  const query = request.knownQuery;
  // A route that declares no query schema is keyed by its whole URL, as written.
  if (query === undefined) return JSON.stringify([request.url]);
  const params = (request.params ?? {}) as Record<string, unknown>;
  return JSON.stringify([
    request.routeOptions.url,
    sortedEntries(params),
    sortedEntries(query).filter(([, value]) => value !== undefined),
  ]);
}

function sortedEntries(fields: Record<string, unknown>): [string, unknown][] {
  return Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

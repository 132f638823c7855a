import type { FastifyInstance, FastifyRequest } from 'fastify';
import { counter } from '@townhall/platform';
import { carriesSignature } from '../auth/signed-requests.js';
import { matchesEntityTag } from '../entity-tag.js';
import { readKeyOf } from '../input/query-policy.js';
import type { LiveHub } from '../live/live-hub.js';
import { EventReadCache, type EventReadCacheOptions } from './event-read-cache.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public read about the event named by the path's `:id` (contract-routes.ts): served from the cache. */
    eventRead?: boolean;
  }
  interface FastifyRequest {
    /** A missed event read sent on to its service: its event, and the cache's clock then. */
    eventRead?: { eventId: string; ticket: number };
  }
}

/**
 * What a shared cache (a CDN) may do with an event read: keep it for one second, then ask again
 * with its ETag (a 304 costs the gateway no service call); a browser asks every time.
 */
export const EVENT_READ_CACHE_CONTROL = 'public, max-age=0, s-maxage=1, must-revalidate';

const readCacheRequests = counter(
  'townhall_read_cache_requests_total',
  'Public event reads by what the gateway cache did: hit (served from memory), miss (asked the service)',
  ['outcome'],
);

/** Whether a route pattern is `/events/:id` or under it: about the one event its `:id` names. */
export function isAboutOneEvent(routePath: string | undefined): boolean {
  return routePath === '/events/:id' || (routePath?.startsWith('/events/:id/') ?? false);
}

/** The event a request is about, if its route is one of those. */
function eventIdOf(request: FastifyRequest): string | undefined {
  if (!isAboutOneEvent(request.routeOptions.url)) return undefined;
  const id = (request.params as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Public event reads (routes marked `eventRead`) served from the process's EventReadCache: a hit
 * is answered in onRequest (after the per-address rate limit counted it) without asking a
 * service; a miss goes on to the service and its 200 is kept. Every message of the live feed
 * marks its event changed, in stream order, and so does every successful write through this
 * gateway to `/events/{id}/...` (so a client reads its own write at once, before the domain event
 * has come round). Replies carry a strong ETag and `Cache-Control` (EVENT_READ_CACHE_CONTROL);
 * If-None-Match answers 304.
 */
export function installCachedEventReads(
  fastify: FastifyInstance,
  hub: LiveHub,
  options: EventReadCacheOptions = {},
): EventReadCache {
  const cache = new EventReadCache(options);
  hub.observe((message) => cache.changed(message.eventId));

  fastify.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || !request.routeOptions.config.eventRead) return;
    // A signed read (an `acceptsSignature` route) may show what the public must not see: never cached.
    if (carriesSignature(request)) return;
    const eventId = eventIdOf(request);
    if (eventId === undefined) return;
    const cached = cache.get(eventId, readKeyOf(request));
    if (!cached) {
      readCacheRequests.inc({ outcome: 'miss' });
      request.eventRead = { eventId, ticket: cache.ticket() };
      return;
    }
    readCacheRequests.inc({ outcome: 'hit' });
    reply.header('cache-control', EVENT_READ_CACHE_CONTROL).header('etag', cached.etag);
    if (matchesEntityTag(request.headers['if-none-match'], cached.etag)) return reply.code(304).send();
    return reply.type(cached.contentType).send(cached.body);
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const status = reply.statusCode;
    const read = request.eventRead;
    if (read) {
      if (status === 200 && typeof payload === 'string') {
        const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
        const etag = cache.store(read.eventId, readKeyOf(request), read.ticket, payload, contentType);
        reply.header('cache-control', EVENT_READ_CACHE_CONTROL).header('etag', etag);
        // A miss (the event changed since, in ways this read may not show) still revalidates.
        if (matchesEntityTag(request.headers['if-none-match'], etag)) {
          void reply.code(304);
          return '';
        }
      }
    } else if (request.method !== 'GET' && request.method !== 'HEAD' && status >= 200 && status < 300) {
      const eventId = eventIdOf(request);
      if (eventId !== undefined) cache.changed(eventId);
    }
    return payload;
  });

  return cache;
}

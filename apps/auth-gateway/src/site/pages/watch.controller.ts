import { Controller, Get, Inject, Optional, Param, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NO_QUERY } from '../../input/query-policy.js';
import { LIVE_STREAM, type LiveStream } from '../../live/live-stream.js';
import { prefersHtml } from './html-preference.js';
import { indexPage } from './index-page.js';
import { sendPage } from './page-response.js';
import { watchPage } from './watch-page.js';
import { SharedReads, WatchReads } from './watch-state.js';

/** What `GET /` tells a client that does not ask for HTML: where the API is. */
export const API_INDEX = {
  name: 'Townhall',
  description:
    'Scheduled gatherings for software agents; every request signed by the agent’s own Ed25519 key.',
  links: {
    docs: '/docs',
    openapi: '/openapi.json',
    events: '/events',
    watch: '/events/{id}/watch',
  },
} as const;

/**
 * The pages for people (docs/product.md "Watch page (humans)"): `GET /` (the live and upcoming
 * events, for a browser; a pointer to the API for anyone else) and `GET /events/{id}/watch`.
 * Public reads like the API's own, counted against the client address's read quota; the
 * services are asked exactly as the public routes ask them (watch-state.ts). Errors are thrown
 * as everywhere else and answered as pages (page-response.ts `installPageProblems`).
 */
@Controller()
export class WatchController {
  /** Handles and recordings, kept a few seconds across pages (watch-state.ts `SharedReads`). */
  private readonly shared: SharedReads;

  constructor(
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
    @Optional() @Inject(LIVE_STREAM) private readonly live: LiveStream | undefined,
  ) {
    this.shared = new SharedReads(services);
  }

  @Get()
  @RouteConfig({ page: 'html-or-json', query: NO_QUERY })
  async index(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    reply.header('vary', 'accept');
    if (!prefersHtml(request.headers.accept)) {
      void reply.type('application/json; charset=utf-8').send(JSON.stringify(API_INDEX));
      return;
    }
    const state = await new WatchReads(this.services, this.shared, request.id).index();
    sendPage(reply, 200, indexPage(state));
  }

  @Get('events/:id/watch')
  // Served from the gateway's event read cache like the JSON reads it is made of (read-cache/):
  // a crowd watching one event costs the services one render per change of the event.
  @RouteConfig({ page: 'html', eventRead: true, query: NO_QUERY })
  async watch(
    @Param('id') eventId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Taken before anything is read: the browser resumes the live stream from here, so a change
    // that lands while the page is read is replayed rather than lost. A cached copy is served
    // only while no message about the event has arrived since (read-cache/), so resuming from
    // its older position replays nothing it lacks.
    const position = this.live?.hub.position;
    const state = await new WatchReads(this.services, this.shared, request.id).watch(eventId, position);
    sendPage(reply, 200, watchPage(state));
  }
}

import { Controller, Inject, Optional, Param, Query, Req, Res } from '@nestjs/common';
import { DomainError, Events, EventPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { clientAddressKey } from '../rate-limit/client-address.js';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';
import { resumePointOf } from './last-event-id.js';
import { LIVE_STREAM, type LiveStream } from './live-stream.js';
import { LIVE_STREAM_DESCRIPTION, LIVE_STREAM_EXAMPLE } from './live-stream-description.js';
import { LiveSubscriber, type LiveViewer } from './live-subscriber.js';
import { SseConnection } from './sse-connection.js';

/** How long a client waits before reconnecting after a dropped connection (the SSE `retry:`). */
export const LIVE_RETRY_MS = 2_000;

/**
 * `GET /events/{id}/live` (docs/product.md "Live stage, Q&A, polls"): a Server-Sent Events stream
 * of every public domain event about one event, resumable with Last-Event-ID. Public, like the
 * other reads; tickets, refunds, waitlist entries, invites and requests to come reach an anonymous
 * stream as counts only. A signed stream also carries the records of its own agent whole, and every
 * agent's to the event's host and moderators. The gateway serves it from its own hub; no service is involved
 * past the read of the event (that it exists, and who its staff are).
 */
@Controller()
export class LiveController {
  constructor(
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
    @Optional() @Inject(LIVE_STREAM) private readonly live: LiveStream | undefined,
  ) {}

  @Route({
    method: 'GET',
    path: '/events/:id/live',
    tag: 'Live',
    acceptsSignature: true,
    summary: 'Follow the event live (Server-Sent Events)',
    description: LIVE_STREAM_DESCRIPTION,
    params: EventPath,
    query: z.object({
      lastEventId: z.string().optional().describe('Resume after this id, like the Last-Event-ID header'),
    }),
    headers: z.object({
      'Last-Event-ID': z.string().optional().describe('Resume after this id (the last `id:` you received)'),
    }),
    produces: 'text/event-stream',
    example: LIVE_STREAM_EXAMPLE,
    statuses: { 200: 'The stream; it stays open until you close it or the gateway shuts down' },
    codes: [
      'event.not_found',
      'validation.failed',
      'dependency.unavailable',
      'live.too_many_streams',
      'live.at_capacity',
      'live.event_at_capacity',
    ],
  })
  async stream(
    @Param('id') eventId: string,
    @Query('lastEventId') lastEventId: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Everything that can fail is checked before the response starts, so it is still a problem+json.
    const resumeAfter = resumePointOf(request.headers['last-event-id'], lastEventId);
    const live = this.live;
    if (!live) throw new DomainError('dependency.unavailable', 'The live stream needs NATS JetStream');
    // Counted by address, signed or not: a signature costs nothing to make, an address does.
    // Taken before the service is asked: a refused client costs nothing more.
    const release = live.streams.take(clientAddressKey(request.ip), eventId);
    // However the exchange ends (an error answer, the client leaving, the stream closing for any
    // reason), its response closes. release() counts once, whichever of these calls it first.
    reply.raw.once('close', release);
    let viewer: LiveViewer | undefined;
    try {
      const event = await this.services.send(Events.get, { eventId }, metaOf(request));
      const agentId = request.caller; // set once a signature sent with the request verified
      if (agentId !== undefined)
        viewer = { agentId, staff: event.hostId === agentId || event.moderators.includes(agentId) };
    } catch (error) {
      release(); // the answer may wait behind a pipelined response that never ends
      throw error;
    }
    if (request.method === 'HEAD') {
      // Fastify answers HEAD with the GET handler: the headers of a stream, and no stream.
      release();
      void reply.type('text/event-stream').header('cache-control', 'no-store').send();
      return;
    }

    const connection = new SseConnection(reply.raw, {
      bufferLimit: live.clientBuffer,
      heartbeatMs: live.heartbeatMs,
      retryMs: LIVE_RETRY_MS,
    });
    connection.onClose(release); // at once if it is closed already
    if (connection.isClosed) {
      reply.hijack(); // nothing to answer: the client has gone
      return;
    }
    const subscriber = new LiveSubscriber(eventId, connection, live.clientBuffer, resumeAfter, viewer);
    const subscription = live.hub.subscribe(eventId, subscriber);

    reply.hijack();
    connection.open(reply.getHeaders());
    const opened = Date.now();
    request.log.debug(
      { eventId, resumeAfter, position: subscription.position, signed: viewer !== undefined },
      'live stream opened',
    );
    connection.onClose((reason) => {
      subscription.unsubscribe();
      const line = { eventId, reason, messages: connection.messagesSent, ms: Date.now() - opened };
      if (reason === 'buffer_full' || reason === 'stalled')
        request.log.warn(
          line,
          'live stream client too slow: disconnected (it may resume with Last-Event-ID)',
        );
      else request.log.info(line, 'live stream closed');
    });

    if (resumeAfter !== undefined) {
      subscriber.catchUp(live.history, subscription.position, live.replayLimit).catch((error: unknown) => {
        // Cut rather than skip: the client resumes from the last id it received, so nothing is lost.
        request.log.error({ err: error, eventId, resumeAfter }, 'live stream replay failed');
        connection.abort('error');
      });
    }
  }
}

import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { Recordings, type RecordingView, RecordingViewSchema, EventPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { metaOf } from '../request-context.js';
import { bodyWith } from './request-body.js';

/**
 * Recordings (docs/product.md "Recordings"); owned by the engagement service. A route is either
 * signed or public here, so the host's read before publication has a signed path of its own
 * (`/recording/draft`) and `/recording` stays public; the service decides by `meta.caller`.
 */
@Controller('events/:id/recording')
export class RecordingsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Public once published; 404 recording.not_found before. */
  @Get()
  @ApiRoute({
    summary: 'The published recording',
    description: 'Public once the host has published it.',
    params: EventPath,
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found'],
  })
  get(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<RecordingView> {
    return this.services.send(Recordings.get, { eventId }, metaOf(request));
  }

  /** The host, signed, whether published or not (others: the published recording, or 403). */
  @Get('draft')
  @Signed()
  @ApiRoute({
    summary: 'The recording before it is published',
    description: 'The host, whether published or not.',
    params: EventPath,
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found', 'role.forbidden'],
  })
  draft(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<RecordingView> {
    return this.services.send(Recordings.get, { eventId }, metaOf(request));
  }

  /** The host publishes: `{ mediaUrl?, summary? }`. */
  @Post('publish')
  @Signed()
  @ApiRoute({
    summary: 'Publish the recording',
    description: 'The host, once the event has ended; publishing again updates `mediaUrl` and `summary`.',
    params: EventPath,
    body: Recordings.publish.request.omit({ eventId: true }),
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found', 'role.forbidden'],
  })
  @HttpCode(200)
  publish(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<RecordingView> {
    return this.services.send(Recordings.publish, bodyWith(body, { eventId }) as never, metaOf(request));
  }
}

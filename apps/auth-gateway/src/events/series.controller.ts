import { Controller, Headers, Inject, Param, Req, Res } from '@nestjs/common';
import { Series, SeriesPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';
import { CALENDAR_CONTENT_TYPE, CALENDAR_EXAMPLE } from './events.controller.js';

/**
 * What a calendar client or a shared cache may do with a series' file: keep it for five minutes
 * (calendar apps poll hourly at most), then ask again with its ETag, which the events service
 * answers from one query of the occurrences' versions without rendering the file.
 */
export const SERIES_CALENDAR_CACHE_CONTROL = 'public, max-age=300';

/** A series' occurrences as an iCalendar file; the other series routes are SeriesRoutes in libs/contracts. */
@Controller()
export class SeriesController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'GET',
    path: '/events/series/:id/calendar.ics',
    tag: 'Series',
    contentType: CALENDAR_CONTENT_TYPE,
    summary: 'The occurrences as an iCalendar file',
    description:
      'The occurrences that start from 3 months back to 12 months ahead (cancelled ones as `STATUS:CANCELLED`). Cacheable: `If-None-Match` with the ETag answers 304 while no occurrence in that window changed.',
    params: SeriesPath,
    reply: z.string(),
    statuses: { 200: 'The calendar file', 304: 'Not modified: `If-None-Match` names the current ETag' },
    replyHeaders: ['Content-Disposition', 'ETag', 'Cache-Control'],
    example: CALENDAR_EXAMPLE,
    codes: ['series.not_found'],
  })
  async calendar(
    @Param('id') seriesId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.services.send(
      Series.calendar,
      { seriesId, ...(ifNoneMatch ? { ifNoneMatch: ifNoneMatch.slice(0, 1000) } : {}) },
      metaOf(request),
    );
    reply.header('cache-control', SERIES_CALENDAR_CACHE_CONTROL).header('etag', file.etag);
    if (file.body === null) {
      void reply.code(304);
      return '';
    }
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return file.body;
  }
}

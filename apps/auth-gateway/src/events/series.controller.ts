import { Controller, Inject, Param, Req, Res } from '@nestjs/common';
import { Series, SeriesPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';
import { CALENDAR_CONTENT_TYPE, CALENDAR_EXAMPLE } from './events.controller.js';

/** Every occurrence of a series as an iCalendar file; the other series routes are SeriesRoutes in libs/contracts. */
@Controller()
export class SeriesController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'GET',
    path: '/events/series/:id/calendar.ics',
    tag: 'Series',
    contentType: CALENDAR_CONTENT_TYPE,
    summary: 'Every occurrence as an iCalendar file',
    params: SeriesPath,
    reply: z.string(),
    replyHeaders: ['Content-Disposition'],
    example: CALENDAR_EXAMPLE,
    codes: ['series.not_found'],
  })
  async calendar(
    @Param('id') seriesId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.services.send(Series.calendar, { seriesId }, metaOf(request));
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return file.body;
  }
}

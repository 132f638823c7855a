import { Controller, Get, Header, Inject, Param, Req, Res } from '@nestjs/common';
import { Series, SeriesPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CALENDAR_EXAMPLE } from '../openapi/api-description.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { metaOf } from '../request-context.js';
import { CALENDAR_CONTENT_TYPE } from './events.controller.js';

/** Every occurrence of a series as an iCalendar file; the other series routes are SeriesRoutes in libs/contracts. */
@Controller('events/series')
export class SeriesController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Get(':id/calendar.ics')
  @Header('content-type', CALENDAR_CONTENT_TYPE)
  @ApiRoute({
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

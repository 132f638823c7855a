import { Controller, Get, Header, Inject, Param, Req, Res } from '@nestjs/common';
import { Events, EventPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { CALENDAR_EXAMPLE } from '../openapi/api-description.js';
import { metaOf } from '../request-context.js';

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** The event as an iCalendar file; the other events routes are EventRoutes in libs/contracts. */
@Controller('events')
export class EventsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Get(':id/calendar.ics')
  @Header('content-type', CALENDAR_CONTENT_TYPE)
  @ApiRoute({
    summary: 'The event as an iCalendar file',
    description: 'RFC 5545; UID `<id>@townhall`, TZID times, `STATUS:CANCELLED` once cancelled.',
    params: EventPath,
    reply: z.string(),
    replyHeaders: ['Content-Disposition'],
    example: CALENDAR_EXAMPLE,
    codes: ['event.not_found'],
  })
  async calendar(
    @Param('id') eventId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.services.send(Events.calendar, { eventId }, metaOf(request));
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return file.body;
  }
}

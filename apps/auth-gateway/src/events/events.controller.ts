import { Controller, Inject, Param, Req, Res } from '@nestjs/common';
import { Events, EventPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** What a calendar file looks like, for the API document. */
export const CALENDAR_EXAMPLE = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//townhall//EN
BEGIN:VEVENT
UID:<id>@townhall
DTSTART;TZID=Europe/Berlin:20300101T180000
DTEND;TZID=Europe/Berlin:20300101T190000
SUMMARY:AMA
END:VEVENT
END:VCALENDAR
`;

/** The event as an iCalendar file; the other events routes are EventRoutes in libs/contracts. */
@Controller()
export class EventsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'GET',
    path: '/events/:id/calendar.ics',
    tag: 'Events',
    contentType: CALENDAR_CONTENT_TYPE,
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

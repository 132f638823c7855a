import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { Series, type SeriesView, SeriesViewSchema, SeriesPath } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Signed } from '../auth/signed.decorator.js';
import { CALENDAR_EXAMPLE } from '../openapi/api-description.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { metaOf } from '../request-context.js';
import { CALENDAR_CONTENT_TYPE } from './events.controller.js';

/** Recurring series (docs/product.md "Series"); owned by the events service. */
@Controller('events/series')
export class SeriesController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Post()
  @Signed()
  @ApiRoute({
    summary: 'Create a recurring series',
    description:
      'An event template and an RRULE subset (`FREQ` DAILY/WEEKLY/MONTHLY, `INTERVAL`, `BYDAY`, `BYMONTHDAY`, `COUNT`, `UNTIL`) in an IANA time zone; occurrences keep their local wall-clock time across DST. Answers with the first upcoming occurrences.',
    body: Series.create.request,
    reply: SeriesViewSchema,
  })
  create(@Body() body: unknown, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.create, (body ?? {}) as never, metaOf(request));
  }

  @Get(':id')
  @ApiRoute({
    summary: 'A series',
    description: 'With `followerCount` and the next 10 `upcoming` occurrences.',
    params: SeriesPath,
    reply: SeriesViewSchema,
    codes: ['series.not_found'],
  })
  get(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.get, { seriesId }, metaOf(request));
  }

  /** Following RSVPs the follower to every future free occurrence (done by ticketing). */
  @Post(':id/follow')
  @Signed()
  @ApiRoute({
    summary: 'Follow a series',
    description: 'RSVPs the caller to every future free occurrence with a seat, once each (idempotent).',
    params: SeriesPath,
    reply: SeriesViewSchema,
    codes: ['series.not_found'],
  })
  @HttpCode(200)
  follow(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.follow, { seriesId, follow: true }, metaOf(request));
  }

  @Delete(':id/follow')
  @Signed()
  @ApiRoute({
    summary: 'Stop following a series',
    description: 'Stops future automatic RSVPs (idempotent).',
    params: SeriesPath,
    reply: SeriesViewSchema,
    codes: ['series.not_found'],
  })
  unfollow(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.follow, { seriesId, follow: false }, metaOf(request));
  }

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

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
import { Series, type SeriesView } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { metaOf } from '../request-context.js';
import { CALENDAR_CONTENT_TYPE } from './events.controller.js';

/** Recurring series (PRODUCT.md "Series"); owned by the events service. */
@Controller('events/series')
export class SeriesController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Post()
  @Signed()
  create(@Body() body: unknown, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.create, (body ?? {}) as never, metaOf(request));
  }

  @Get(':id')
  get(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.get, { seriesId }, metaOf(request));
  }

  /** Following RSVPs the follower to every future free occurrence (done by ticketing). */
  @Post(':id/follow')
  @Signed()
  @HttpCode(200)
  follow(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.follow, { seriesId, follow: true }, metaOf(request));
  }

  @Delete(':id/follow')
  @Signed()
  unfollow(@Param('id') seriesId: string, @Req() request: FastifyRequest): Promise<SeriesView> {
    return this.services.send(Series.follow, { seriesId, follow: false }, metaOf(request));
  }

  @Get(':id/calendar.ics')
  @Header('content-type', CALENDAR_CONTENT_TYPE)
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

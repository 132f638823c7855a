import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  Events,
  type EventFieldsInput,
  type EventView,
  type LifecycleAction,
  type Page,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { metaOf } from '../request-context.js';

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** Events routes (PRODUCT.md "Event lifecycle"); the events service owns the data. */
@Controller('events')
export class EventsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Schedules an event; the caller becomes its host. */
  @Post()
  @Signed()
  create(@Body() body: EventFieldsInput | undefined, @Req() request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.create, body ?? ({} as EventFieldsInput), metaOf(request));
  }

  /** Public: filter by status, hostId, seriesId, from/to (start time) and q; sorted by start; cursor paging. */
  @Get()
  list(@Query() query: Record<string, string>, @Req() request: FastifyRequest): Promise<Page<EventView>> {
    return this.services.send(Events.list, query as never, metaOf(request));
  }

  @Get(':id')
  get(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.get, { eventId }, metaOf(request));
  }

  /** The host edits a scheduled event: any subset of the creation fields. */
  @Patch(':id')
  @Signed()
  update(
    @Param('id') eventId: string,
    @Body() changes: unknown,
    @Req() request: FastifyRequest,
  ): Promise<EventView> {
    return this.services.send(Events.update, { eventId, changes: (changes ?? {}) as never }, metaOf(request));
  }

  @Post(':id/start')
  @Signed()
  @HttpCode(200)
  start(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'start', request);
  }

  @Post(':id/end')
  @Signed()
  @HttpCode(200)
  end(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'end', request);
  }

  @Post(':id/cancel')
  @Signed()
  @HttpCode(200)
  cancel(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'cancel', request);
  }

  @Get(':id/calendar.ics')
  @Header('content-type', CALENDAR_CONTENT_TYPE)
  async calendar(
    @Param('id') eventId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.services.send(Events.calendar, { eventId }, metaOf(request));
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return file.body;
  }

  private transition(eventId: string, action: LifecycleAction, request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.transition, { eventId, action }, metaOf(request));
  }
}

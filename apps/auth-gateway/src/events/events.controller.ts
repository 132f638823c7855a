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
  EventPageSchema,
  EventViewSchema,
  EventPath,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { CALENDAR_EXAMPLE } from '../openapi/api-description.js';
import { metaOf } from '../request-context.js';

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** Events routes (docs/product.md "Event lifecycle"); the events service owns the data. */
@Controller('events')
export class EventsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Schedules an event; the caller becomes its host. */
  @Post()
  @Signed()
  @ApiRoute({
    summary: 'Schedule an event',
    description: 'The caller becomes its host.',
    body: Events.create.request,
    reply: EventViewSchema,
  })
  create(@Body() body: EventFieldsInput | undefined, @Req() request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.create, body ?? ({} as EventFieldsInput), metaOf(request));
  }

  /** Public: filter by status, hostId, seriesId, from/to (start time) and q; sorted by start; cursor paging. */
  @Get()
  @ApiRoute({
    summary: 'List events',
    description: 'Sorted by `startsAt`; filter by status, host, series, start time and words.',
    query: Events.list.request,
    reply: EventPageSchema,
  })
  list(@Query() query: Record<string, string>, @Req() request: FastifyRequest): Promise<Page<EventView>> {
    return this.services.send(Events.list, query as never, metaOf(request));
  }

  @Get(':id')
  @ApiRoute({ summary: 'An event', params: EventPath, reply: EventViewSchema, codes: ['event.not_found'] })
  get(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.get, { eventId }, metaOf(request));
  }

  /** The host edits a scheduled event: any subset of the creation fields. */
  @Patch(':id')
  @Signed()
  @ApiRoute({
    summary: 'Edit a scheduled event',
    description: 'The host only; any subset of the creation fields. Capacity never drops below tickets sold.',
    params: EventPath,
    body: Events.update.request.shape.changes,
    reply: EventViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'event.not_editable', 'event.capacity_below_sold'],
  })
  update(
    @Param('id') eventId: string,
    @Body() changes: unknown,
    @Req() request: FastifyRequest,
  ): Promise<EventView> {
    return this.services.send(Events.update, { eventId, changes: (changes ?? {}) as never }, metaOf(request));
  }

  @Post(':id/start')
  @Signed()
  @ApiRoute({
    summary: 'Start the event (scheduled -> live)',
    description: 'The host only; opens the stage.',
    params: EventPath,
    reply: EventViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'event.invalid_transition'],
  })
  @HttpCode(200)
  start(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'start', request);
  }

  @Post(':id/end')
  @Signed()
  @ApiRoute({
    summary: 'End the event (live -> past)',
    description: 'The host only; closes the polls and assembles the recording.',
    params: EventPath,
    reply: EventViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'event.invalid_transition'],
  })
  @HttpCode(200)
  end(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'end', request);
  }

  @Post(':id/cancel')
  @Signed()
  @ApiRoute({
    summary: 'Cancel the event (scheduled -> cancelled)',
    description: 'The host only; cancels every ticket and refunds each paid one in full.',
    params: EventPath,
    reply: EventViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'event.invalid_transition'],
  })
  @HttpCode(200)
  cancel(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<EventView> {
    return this.transition(eventId, 'cancel', request);
  }

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

  private transition(eventId: string, action: LifecycleAction, request: FastifyRequest): Promise<EventView> {
    return this.services.send(Events.transition, { eventId, action }, metaOf(request));
  }
}

import { Body, Controller, Get, Inject, Param, Post, Query, Req } from '@nestjs/common';
import {
  Stage,
  type Page,
  type StageMessageView,
  StageMessagePageSchema,
  StageMessageViewSchema,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { EventPath } from '../openapi/route-params.js';
import { metaOf } from '../request-context.js';
import { bodyWith } from './request-body.js';

/** The live stage (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
@Controller('events/:id/stage')
export class StageController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Speakers, moderators and the host, while the event is live. 201 with the message. */
  @Post()
  @Signed()
  @ApiRoute({
    summary: 'Post to the stage',
    description: 'Speakers, moderators and the host, while the event is live.',
    params: EventPath,
    body: Stage.post.request.omit({ eventId: true }),
    reply: StageMessageViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'stage.closed'],
  })
  post(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<StageMessageView> {
    return this.services.send(Stage.post, bodyWith(body, { eventId }) as never, metaOf(request));
  }

  /** Public, in order; poll with `?after=<last sequence seen>`. */
  @Get()
  @ApiRoute({
    summary: 'The stage messages, in order',
    description: 'Poll with `?after=<the last sequence you saw>`, or follow `/events/{id}/live`.',
    params: EventPath,
    query: Stage.list.request.omit({ eventId: true }),
    reply: StageMessagePageSchema,
    codes: ['event.not_found'],
  })
  list(
    @Param('id') eventId: string,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<StageMessageView>> {
    return this.services.send(Stage.list, { ...query, eventId } as never, metaOf(request));
  }
}

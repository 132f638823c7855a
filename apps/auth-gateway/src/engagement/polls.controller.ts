import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { Polls, type Page, type PollView, PollPageSchema, PollViewSchema } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { EventPath, PollPath } from '../openapi/route-params.js';
import { metaOf } from '../request-context.js';
import { bodyWith } from './request-body.js';

/** Polls (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
@Controller('events/:id/polls')
export class PollsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Speakers, moderators and the host, while live. 201 with the poll. */
  @Post()
  @Signed()
  @ApiRoute({
    summary: 'Open a poll',
    description: 'Speakers, moderators and the host, while live: 2 to 10 options.',
    params: EventPath,
    body: Polls.open.request.omit({ eventId: true }),
    reply: PollViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'poll.not_live'],
  })
  open(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PollView> {
    return this.services.send(Polls.open, bodyWith(body, { eventId }) as never, metaOf(request));
  }

  /** Public; counts are null while a poll shows results only after closing. */
  @Get()
  @ApiRoute({
    summary: 'The polls, in opening order',
    description: 'Counts are null while a poll shows its results only after closing.',
    params: EventPath,
    query: Polls.list.request.omit({ eventId: true }),
    reply: PollPageSchema,
    codes: ['event.not_found'],
  })
  list(
    @Param('id') eventId: string,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<PollView>> {
    return this.services.send(Polls.list, { ...query, eventId } as never, metaOf(request));
  }

  /** One ballot per attendee: `{ optionIds }`; a second is 409 poll.already_voted. */
  @Post(':pid/vote')
  @Signed()
  @ApiRoute({
    summary: 'Vote in a poll',
    description: 'Attendees, once per poll.',
    params: PollPath,
    body: Polls.vote.request.omit({ eventId: true, pollId: true }),
    reply: PollViewSchema,
    codes: ['event.not_found', 'poll.not_found', 'role.forbidden', 'poll.closed', 'poll.already_voted'],
  })
  @HttpCode(200)
  vote(
    @Param('id') eventId: string,
    @Param('pid') pollId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PollView> {
    return this.services.send(Polls.vote, bodyWith(body, { eventId, pollId }) as never, metaOf(request));
  }

  /** The opener, a moderator or the host. */
  @Post(':pid/close')
  @Signed()
  @ApiRoute({
    summary: 'Close a poll',
    description: 'The opener, a moderator or the host.',
    params: PollPath,
    reply: PollViewSchema,
    codes: ['event.not_found', 'poll.not_found', 'role.forbidden', 'poll.closed'],
  })
  @HttpCode(200)
  close(
    @Param('id') eventId: string,
    @Param('pid') pollId: string,
    @Req() request: FastifyRequest,
  ): Promise<PollView> {
    return this.services.send(Polls.close, { eventId, pollId }, metaOf(request));
  }
}

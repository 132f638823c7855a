import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { Polls, type Page, type PollView } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { metaOf } from '../request-context.js';
import { bodyWith } from './request-body.js';

/** Polls (PRODUCT.md "Live stage, Q&A, polls"); owned by the engagement service. */
@Controller('events/:id/polls')
export class PollsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Speakers, moderators and the host, while live. 201 with the poll. */
  @Post()
  @Signed()
  open(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PollView> {
    return this.services.send(Polls.open, bodyWith(body, { eventId }) as never, metaOf(request));
  }

  /** Public; counts are null while a poll shows results only after closing. */
  @Get()
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
  @HttpCode(200)
  close(
    @Param('id') eventId: string,
    @Param('pid') pollId: string,
    @Req() request: FastifyRequest,
  ): Promise<PollView> {
    return this.services.send(Polls.close, { eventId, pollId }, metaOf(request));
  }
}

import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import {
  Questions,
  type Page,
  type QuestionAction,
  type QuestionView,
  QuestionPageSchema,
  QuestionViewSchema,
  EventPath,
  QuestionPath,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { metaOf } from '../request-context.js';
import { bodyWith } from './request-body.js';

/** What an upvote or its withdrawal can answer besides the common codes. */
const UPVOTE_CODES = [
  'event.not_found',
  'question.not_found',
  'role.forbidden',
  'question.closed',
  'question.own_upvote',
] as const;

/** What a moderation action (promote, answer, dismiss) can answer besides the common codes. */
const MODERATION_CODES = [
  'event.not_found',
  'question.not_found',
  'role.forbidden',
  'question.closed',
  'question.invalid_transition',
] as const;

/** Q&A (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
@Controller('events/:id/questions')
export class QuestionsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Attendees, while the event is scheduled or live. 201 with the question. */
  @Post()
  @Signed()
  @ApiRoute({
    summary: 'Ask a question',
    description:
      'Attendees, while the event is scheduled (AMA pre-questions) or live; 5 per minute per event.',
    params: EventPath,
    body: Questions.submit.request.omit({ eventId: true }),
    reply: QuestionViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'question.closed', 'rate.limited'],
  })
  submit(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<QuestionView> {
    return this.services.send(Questions.submit, bodyWith(body, { eventId }) as never, metaOf(request));
  }

  /** Public: `?sort=top|new&state=&limit=&cursor=`. */
  @Get()
  @ApiRoute({
    summary: 'The questions',
    description: 'By upvotes then age (`sort=top`) or newest first (`sort=new`).',
    params: EventPath,
    query: Questions.list.request.omit({ eventId: true }),
    reply: QuestionPageSchema,
    codes: ['event.not_found'],
  })
  list(
    @Param('id') eventId: string,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<QuestionView>> {
    return this.services.send(Questions.list, { ...query, eventId } as never, metaOf(request));
  }

  /** Idempotent: upvoting twice counts once. */
  @Post(':qid/upvote')
  @Signed()
  @ApiRoute({
    summary: 'Upvote a question',
    description: 'Attendees, not the author; idempotent (counted once).',
    params: QuestionPath,
    reply: QuestionViewSchema,
    codes: [...UPVOTE_CODES],
  })
  @HttpCode(200)
  upvote(
    @Param('id') eventId: string,
    @Param('qid') questionId: string,
    @Req() request: FastifyRequest,
  ): Promise<QuestionView> {
    return this.services.send(Questions.upvote, { eventId, questionId, up: true }, metaOf(request));
  }

  /** Withdraws the caller's upvote (idempotent). */
  @Delete(':qid/upvote')
  @Signed()
  @ApiRoute({
    summary: 'Withdraw your upvote',
    description: 'Idempotent.',
    params: QuestionPath,
    reply: QuestionViewSchema,
    codes: [...UPVOTE_CODES],
  })
  withdraw(
    @Param('id') eventId: string,
    @Param('qid') questionId: string,
    @Req() request: FastifyRequest,
  ): Promise<QuestionView> {
    return this.services.send(Questions.upvote, { eventId, questionId, up: false }, metaOf(request));
  }

  /** Moderators and the host; promoting puts the question on stage (live only). */
  @Post(':qid/promote')
  @Signed()
  @ApiRoute({
    summary: 'Put a question on stage',
    description: 'Moderators and the host, while live: the stage gets a message of kind `question`.',
    params: QuestionPath,
    reply: QuestionViewSchema,
    codes: [
      'event.not_found',
      'question.not_found',
      'role.forbidden',
      'stage.closed',
      'question.closed',
      'question.invalid_transition',
    ],
  })
  @HttpCode(200)
  promote(@Param('id') eventId: string, @Param('qid') questionId: string, @Req() request: FastifyRequest) {
    return this.moderate(eventId, questionId, 'promote', request);
  }

  @Post(':qid/answer')
  @Signed()
  @ApiRoute({
    summary: 'Mark a question answered',
    description: 'Moderators and the host.',
    params: QuestionPath,
    reply: QuestionViewSchema,
    codes: [...MODERATION_CODES],
  })
  @HttpCode(200)
  answer(@Param('id') eventId: string, @Param('qid') questionId: string, @Req() request: FastifyRequest) {
    return this.moderate(eventId, questionId, 'answer', request);
  }

  @Post(':qid/dismiss')
  @Signed()
  @ApiRoute({
    summary: 'Dismiss a question',
    description: 'Moderators and the host.',
    params: QuestionPath,
    reply: QuestionViewSchema,
    codes: [...MODERATION_CODES],
  })
  @HttpCode(200)
  dismiss(@Param('id') eventId: string, @Param('qid') questionId: string, @Req() request: FastifyRequest) {
    return this.moderate(eventId, questionId, 'dismiss', request);
  }

  private moderate(
    eventId: string,
    questionId: string,
    action: QuestionAction,
    request: FastifyRequest,
  ): Promise<QuestionView> {
    return this.services.send(Questions.moderate, { eventId, questionId, action }, metaOf(request));
  }
}

import { Controller, Headers, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { entityTagOf, matchesEntityTag } from '../../entity-tag.js';
import { Route, type RouteSpec } from '../../routes/route.decorator.js';
import type { OpenApiDocument } from './openapi-document.js';

export const OPENAPI_DOCUMENT = Symbol('OpenApiDocument');

/** A document, serialised once: it only changes when the gateway's code does. */
export class PublishedDocument<D extends object = OpenApiDocument> {
  readonly json: string;
  readonly etag: string;

  constructor(readonly document: D) {
    this.json = JSON.stringify(document);
    this.etag = entityTagOf(this.json);
  }
}

/**
 * What the routes of both documents (this one, /asyncapi.json) are: public GETs, conditional,
 * asking no service, never rate limited.
 */
export const DOCUMENT_ROUTE: Pick<
  RouteSpec,
  'method' | 'tag' | 'unlimited' | 'statuses' | 'replyHeaders' | 'callsService'
> = {
  method: 'GET',
  tag: 'Documentation',
  unlimited: true,
  statuses: { 200: 'The document', 304: 'Not modified: `If-None-Match` names the current ETag' },
  replyHeaders: ['ETag', 'Cache-Control'],
  callsService: false,
};

/** `GET /openapi.json`: public, unsigned and cacheable (the docs page at /docs reads the same document). */
@Controller()
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly published: PublishedDocument) {}

  @Route({
    ...DOCUMENT_ROUTE,
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    description: "Generated from the gateway's code at start. `/docs` renders it.",
    reply: z.looseObject({ openapi: z.string() }).describe('An OpenAPI 3.1 document'),
  })
  document(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    sendDocument(this.published, ifNoneMatch, reply);
  }
}

/** A published document as JSON: public, cacheable for five minutes, 304 to its ETag, any origin. */
export function sendDocument(
  published: PublishedDocument<object>,
  ifNoneMatch: string | undefined,
  reply: FastifyReply,
): void {
  reply
    .header('cache-control', 'public, max-age=300')
    .header('etag', published.etag)
    .header('access-control-allow-origin', '*');
  if (matchesEntityTag(ifNoneMatch, published.etag)) {
    reply.code(304).send();
    return;
  }
  reply.type('application/json; charset=utf-8').send(published.json);
}

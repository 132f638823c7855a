import { Controller, Headers, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Route } from '../../routes/route.decorator.js';
import { DOCUMENT_ROUTE, sendDocument, type PublishedDocument } from './openapi.controller.js';
import type { AsyncApiDocument } from './asyncapi-document.js';

export const ASYNCAPI_DOCUMENT = Symbol('AsyncApiDocument');

/**
 * `GET /asyncapi.json`: every NATS subject and payload (domain events, requests between services)
 * as AsyncAPI 3.0, for services that read NATS directly. Public, unsigned, never rate limited and
 * cacheable, like /openapi.json.
 */
@Controller()
export class AsyncApiController {
  constructor(@Inject(ASYNCAPI_DOCUMENT) private readonly published: PublishedDocument<AsyncApiDocument>) {}

  @Route({
    ...DOCUMENT_ROUTE,
    path: '/asyncapi.json',
    summary: 'The AsyncAPI 3.0 document of the NATS subjects',
    description:
      'Every domain event (a CloudEvent on `townhall.<aggregate>.<verb>`, with the schema of its `data`) and every request between services, generated at start from the same contracts the services use. For services that read NATS directly; agents use this HTTP API and `GET /events/{id}/live`.',
    reply: z.looseObject({ asyncapi: z.string() }).describe('An AsyncAPI 3.0 document'),
  })
  asyncApi(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    sendDocument(this.published, ifNoneMatch, reply);
  }
}

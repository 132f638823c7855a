import type { MessageMeta } from '@townhall/contracts';
import type { FastifyRequest } from 'fastify';

/** What a service is told about the HTTP request it is serving. */
export function metaOf(request: FastifyRequest): MessageMeta {
  return { requestId: request.id, caller: request.caller ?? null };
}

/** Accept a caller's request id if it is a sane token; otherwise mint one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export function requestIdFrom(header: string | string[] | undefined, mint: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : mint();
}

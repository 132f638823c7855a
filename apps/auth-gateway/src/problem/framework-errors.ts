import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError } from '@townhall/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE, sendProblem } from './problem.js';

/**
 * Errors raised before any route or hook runs, answered as problem+json like every other
 * error: Fastify's router (`frameworkErrors`: bad percent-encoding, a path parameter over
 * maxParamLength) and Node's HTTP parser (`clientErrorHandler`: bytes that are not HTTP, raw
 * non-ASCII in the path, headers too large, a request not received within the timeouts).
 */
export function routerErrorHandler(audience: string) {
  return (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    sendProblem(request, reply, routerError(error), audience);
  };
}

/** What a router error means (also for the pages for people, site/pages/page-response.ts). */
export function routerError(error: { code?: string }): DomainError {
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new DomainError('request.uri_too_long', 'A path segment is longer than 100 characters');
    case 'FST_ERR_BAD_URL':
      return new DomainError('request.path_invalid', 'The path is not valid percent-encoded UTF-8');
    default:
      return new DomainError('request.malformed', 'The request could not be routed');
  }
}

/** Answers on the raw socket: there is no request object yet, so a fresh request id. */
export function clientErrorHandler(audience: string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const problem = buildProblem(clientError(error), requestId, audience);
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\n` +
        `content-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  };
}

function clientError(error: { code?: string }): DomainError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('request.headers_too_large', 'The request headers are larger than 16 KiB');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('request.timeout', 'The request was not received in time');
    default:
      return new DomainError('request.malformed', 'The bytes received are not an acceptable HTTP request');
  }
}

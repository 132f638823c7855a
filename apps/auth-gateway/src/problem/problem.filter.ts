import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { DomainError } from '@townhall/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem, toDomainError } from './problem.js';

/**
 * The one mapper from thrown errors to problem+json. Typed errors keep their code; a
 * Nest HttpException (routing, 404/405) gets a route code; anything else is a bug: it
 * is logged with its stack and answered 500 `internal.error`.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(private readonly audience: string) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendProblem(request, reply, this.map(exception, request), this.audience);
  }

  map(exception: unknown, request: FastifyRequest): DomainError {
    const known = toDomainError(exception);
    if (known) return known;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404)
        return new DomainError(
          'route.not_found',
          `No route for ${request.method} ${request.url.split('?')[0]}`,
        );
      if (status === 405)
        return new DomainError('route.method_not_allowed', `${request.method} is not allowed here`);
      if (status === 413) return new DomainError('request.body_too_large', 'The body is larger than 64 KiB');
      if (status === 415)
        return new DomainError('request.unsupported_media_type', 'Send bodies as application/json');
      if (status < 500) return new DomainError('validation.failed', exception.message);
    }
    request.log.error({ err: exception }, 'unhandled error');
    return new DomainError('internal.error', 'Internal error');
  }
}

import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { DomainError, type RemoteError } from '@townhall/contracts';
import { throwError, type Observable } from 'rxjs';
import type { Logger } from './logger.js';
import { requestIdOf } from './observability/message-interceptor.js';

/**
 * The last stop of every failed message handler: a DomainError travels back as its
 * RemoteError; anything else is a bug, logged here with its stack and answered as
 * `internal.error` without leaking internals.
 */
@Catch()
export class RemoteErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<RemoteError> {
    if (exception instanceof DomainError) return throwError(() => exception.toRemote());
    this.logger.error({ err: exception, requestId: requestIdOf(host) }, 'unhandled error in message handler');
    return throwError(() => new DomainError('internal.error', 'Internal error').toRemote());
  }
}

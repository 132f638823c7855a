import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { DomainError, type RemoteError } from '@townhall/contracts';
import { throwError, type Observable } from 'rxjs';
import { databaseFaultOf } from './database-faults.js';
import type { Logger } from './logger.js';
import { requestIdOf } from './observability/message-interceptor.js';

/**
 * The last stop of every failed message handler: a DomainError travels back as its
 * RemoteError; a database that could not be reached or went away is `dependency.unavailable`
 * and a pool that stayed full is `service.overloaded` (503 with Retry-After: the client retries); anything else is a bug, logged here with its
 * stack and answered as `internal.error` without leaking internals.
 */
@Catch()
export class RemoteErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<RemoteError> {
    if (exception instanceof DomainError) return throwError(() => exception.toRemote());
    const fault = databaseFaultOf(exception);
    if (fault === 'saturated') {
      return throwError(() =>
        new DomainError(
          'service.overloaded',
          'The service is at capacity and did not start this request; nothing was changed. Retry after Retry-After.',
        ).toRemote(),
      );
    }
    if (fault) {
      this.logger.warn(
        { err: exception, fault, requestId: requestIdOf(host) },
        'the database is unavailable',
      );
      const detail =
        fault === 'refused'
          ? 'The database is unavailable; nothing was changed. Retry shortly.'
          : 'The connection to the database was lost while the request ran. Retry shortly.';
      return throwError(() => new DomainError('dependency.unavailable', detail).toRemote());
    }
    this.logger.error({ err: exception, requestId: requestIdOf(host) }, 'unhandled error in message handler');
    return throwError(() => new DomainError('internal.error', 'Internal error').toRemote());
  }
}

import { sqlState } from './database.js';

/**
 * What a failed query says about the database, as opposed to the request: it could not be
 * reached, or it went away under the query (a restart, a terminated backend, a full connection
 * table). A client is told 503 `dependency.unavailable` and to retry, never 500
 * (docs/protocol/errors.md).
 */
export type DatabaseFault =
  /** Nothing reached the database, or the server aborted the statement: no effect, safe to run again. */
  | 'refused'
  /** The connection broke while a statement was in flight: whether it took effect is unknown. */
  | 'lost'
  /**
   * Every connection of the service's pool stayed busy for the whole wait (DATABASE_POOL_WAIT_MS):
   * the service, not the database, is at capacity, and nothing ran. Shed at once with 503
   * `service.overloaded` and Retry-After, never retried here (that would add to the queue), well
   * before the gateway's deadline would answer 504 for work the service still queued (issue [17]).
   */
  | 'saturated';

// SQLSTATEs the server sends when it, not the statement, is the problem (Appendix A of the
// PostgreSQL manual): class 08 (connection exception), 53300 too_many_connections, 57P01
// admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02 crash_shutdown, 57P03
// cannot_connect_now (starting or stopping). Each of them aborts the statement it answers.
const REFUSING_STATES = /^(08...|53300|57P0[123])$/;
// Socket errors of node:net: the first ones come only from connecting (nothing reached the
// server); a reset or a broken pipe can also cut a query in flight.
const REFUSED_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const LOST_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);
// pg-pool's error for a caller that waited its connectionTimeoutMillis in the queue of a full
// pool (a new connection that could not be made in time says 'Connection terminated due to
// connection timeout' instead).
const POOL_SATURATED = 'timeout exceeded when trying to connect';
// pg reports a connection that could not be made in time, or a client whose socket is gone.
const REFUSED_MESSAGES = ['Connection terminated due to connection timeout', 'is not queryable'];
// pg: the socket closed while a query was in flight (the server's answer never came).
const LOST_MESSAGES = ['Connection terminated unexpectedly', 'Connection terminated'];
// TypeORM: a query runner whose connection was already given back after a failure.
const RELEASED_RUNNER_ERRORS = new Set([
  'QueryRunnerProviderAlreadyReleasedError',
  'QueryRunnerAlreadyReleasedError',
]);

/** The database fault behind `error`, if it is one (see DatabaseFault); undefined for any other error. */
export function databaseFaultOf(error: unknown): DatabaseFault | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = sqlState(error);
  if (code !== undefined && REFUSING_STATES.test(code)) return 'refused';
  const driverError = 'driverError' in error ? error.driverError : undefined;
  for (const candidate of [error, driverError]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const {
      code: socketCode,
      message,
      name,
    } = candidate as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof socketCode === 'string' && REFUSED_SOCKET_CODES.has(socketCode)) return 'refused';
    if (typeof socketCode === 'string' && LOST_SOCKET_CODES.has(socketCode)) return 'lost';
    if (typeof name === 'string' && RELEASED_RUNNER_ERRORS.has(name)) return 'refused';
    if (typeof message !== 'string') continue;
    if (message === POOL_SATURATED) return 'saturated';
    if (REFUSED_MESSAGES.some((text) => message.includes(text))) return 'refused';
    if (LOST_MESSAGES.some((text) => message.startsWith(text))) return 'lost';
  }
  return undefined;
}

import { databaseFaultOf } from './database-faults.js';

/** An error as pg raises it for a server's ErrorResponse (SQLSTATE in `code`). */
function serverError(code: string, message = 'server error'): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

/** TypeORM's QueryFailedError keeps pg's error as `driverError`. */
function queryFailed(driverError: Error): Error {
  return Object.assign(new Error(driverError.message), { name: 'QueryFailedError', driverError });
}

describe('databaseFaultOf: what a failed query says about the database', () => {
  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is shutting down'],
    ['53300', 'sorry, too many clients already'],
    ['08006', 'connection failure'],
  ])('SQLSTATE %s (%s) is refused: the server aborted the statement', (code, message) => {
    expect(databaseFaultOf(serverError(code, message))).toBe('refused');
    expect(databaseFaultOf(queryFailed(serverError(code, message)))).toBe('refused');
  });

  it('a connection that could not be made is refused: nothing reached the server', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(databaseFaultOf(refused)).toBe('refused');
    expect(databaseFaultOf(new Error('Connection terminated due to connection timeout'))).toBe('refused');
    expect(databaseFaultOf(new Error('Client has encountered a connection error and is not queryable'))).toBe(
      'refused',
    );
    class QueryRunnerProviderAlreadyReleasedError extends Error {
      override name = 'QueryRunnerProviderAlreadyReleasedError';
    }
    expect(databaseFaultOf(new QueryRunnerProviderAlreadyReleasedError('released'))).toBe('refused');
  });

  it('a connection cut while a statement ran is lost: it may have taken effect', () => {
    expect(databaseFaultOf(new Error('Connection terminated unexpectedly'))).toBe('lost');
    expect(databaseFaultOf(queryFailed(new Error('Connection terminated unexpectedly')))).toBe('lost');
    expect(databaseFaultOf(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('lost');
  });

  it('a wait for a connection of a full pool that ran out is saturated: the service, not the server, is busy', () => {
    expect(databaseFaultOf(new Error('timeout exceeded when trying to connect'))).toBe('saturated');
    expect(databaseFaultOf(queryFailed(new Error('timeout exceeded when trying to connect')))).toBe(
      'saturated',
    );
  });

  it('the errors of a request are not faults of the database', () => {
    expect(databaseFaultOf(serverError('23505', 'duplicate key value'))).toBeUndefined();
    expect(databaseFaultOf(serverError('40001', 'could not serialize access'))).toBeUndefined();
    expect(databaseFaultOf(serverError('22P02', 'invalid input syntax for type uuid'))).toBeUndefined();
    expect(databaseFaultOf(new Error('Connection was terminated by the user'))).toBeUndefined();
    expect(databaseFaultOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseFaultOf('Connection terminated unexpectedly')).toBeUndefined();
    expect(databaseFaultOf(null)).toBeUndefined();
  });
});

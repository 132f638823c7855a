import { DomainError } from '@townhall/contracts';

const SEQUENCE = /^\d{1,16}$/;

/**
 * Where a client resumes: the `Last-Event-ID` header (what EventSource sends when it
 * reconnects) or else `?lastEventId=` (a first connection cannot set headers in a browser).
 * The ids are JetStream stream sequences. An empty value means no resume, as EventSource
 * sends none after an empty `id:`. Anything else that is not a sequence is a 400.
 */
export function resumePointOf(header: string | string[] | undefined, query: unknown): number | undefined {
  const fromHeader = header !== undefined;
  const value: unknown = fromHeader ? header : query;
  const field = fromHeader ? 'Last-Event-ID' : 'lastEventId';
  if (value === undefined || value === '') return undefined;
  const seq = typeof value === 'string' && SEQUENCE.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new DomainError('validation.failed', `${field} must be the id of a live-stream message`, [
      { field, message: 'expected a stream sequence: digits only' },
    ]);
  }
  return seq;
}

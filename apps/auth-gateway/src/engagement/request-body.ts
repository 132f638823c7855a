import { DomainError } from '@townhall/contracts';

/** The JSON body (none is `{}`) with the path's ids laid over it: ids always come from the path. */
export function bodyWith<T extends Record<string, string>>(
  body: unknown,
  ids: T,
): Record<string, unknown> & T {
  if (body === undefined) return { ...ids };
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new DomainError('validation.failed', 'The body must be a JSON object', [
      { field: '(body)', message: 'must be a JSON object' },
    ]);
  return { ...body, ...ids };
}

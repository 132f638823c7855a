import { DomainError } from '@townhall/contracts';

/**
 * List cursors: the sort key of the last item of a page, opaque to clients (base64url JSON).
 * A cursor that does not decode to the expected shape is a 400 on `cursor`.
 */
export function encodeCursor(position: Record<string, number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, number> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  if (!keys.every((key) => Number.isSafeInteger(record[key]))) {
    throw new DomainError('validation.failed', 'The cursor is not valid', [
      { field: 'cursor', message: 'is not a cursor this list gave' },
    ]);
  }
  return record as Record<K, number>;
}

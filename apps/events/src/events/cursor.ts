import { DomainError } from '@townhall/contracts';

/**
 * Keyset paging on (starts_at, id): a page never repeats or skips an event that existed
 * when paging began, however many are inserted meanwhile. The cursor is opaque to clients.
 */
export interface EventCursor {
  startsAt: string;
  id: string;
}

export function encodeCursor(cursor: EventCursor): string {
  return Buffer.from(JSON.stringify([cursor.startsAt, cursor.id])).toString('base64url');
}

export function decodeCursor(value: string): EventCursor {
  try {
    const [startsAt, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[];
    if (typeof startsAt === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(startsAt)))
      return { startsAt, id };
  } catch {
    // fall through
  }
  throw new DomainError('validation.failed', 'cursor: not a cursor this service issued', [
    { field: 'cursor', message: 'not a cursor this service issued' },
  ]);
}

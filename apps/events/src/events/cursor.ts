import { CursorKey, cursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Keyset paging on (starts_at, id): a page never repeats or skips an event that existed
 * when paging began, however many are inserted meanwhile. The cursor is opaque to clients.
 */
export interface EventCursor {
  startsAt: string;
  id: string;
}

const codec = cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid]));

export function encodeCursor(cursor: EventCursor): string {
  return codec.encode([cursor.startsAt, cursor.id]);
}

export function decodeCursor(value: string): EventCursor {
  const [startsAt, id] = codec.decode(value);
  return { startsAt, id };
}

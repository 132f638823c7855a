import { CursorKey, cursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Keyset paging on (listing_rank, starts_at, id): events someone holds a ticket in first (rank 0),
 * then the others, each by start. A page never repeats or skips an event that existed when paging
 * began and kept its rank, however many are inserted meanwhile; one whose first ticket is issued
 * while a client pages moves up, and is missed by that client if its old place was still ahead.
 * The cursor is opaque to clients.
 */
export interface EventCursor {
  rank: number;
  startsAt: string;
  id: string;
}

const codec = cursorCodec(z.tuple([z.number().int().min(0).max(1), CursorKey.instant, CursorKey.uuid]));

export function encodeCursor(cursor: EventCursor): string {
  return codec.encode([cursor.rank, cursor.startsAt, cursor.id]);
}

export function decodeCursor(value: string): EventCursor {
  const [rank, startsAt, id] = codec.decode(value);
  return { rank, startsAt, id };
}

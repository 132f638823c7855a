import { CursorKey, cursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Keyset paging of the series list on (created_at, id), newest first: a page never repeats or
 * skips a series that existed when paging began. `createdAt` keeps the column's microseconds
 * (SERIES_POSITION), so two series created in the same millisecond still page apart.
 */
export interface SeriesCursor {
  createdAt: string;
  id: string;
}

const codec = cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid]));

/** created_at as the cursor carries it: RFC 3339 UTC with microseconds. */
export const SERIES_POSITION = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export function encodeSeriesCursor(cursor: SeriesCursor): string {
  return codec.encode([cursor.createdAt, cursor.id]);
}

export function decodeSeriesCursor(value: string): SeriesCursor {
  const [createdAt, id] = codec.decode(value);
  return { createdAt, id };
}

import { CursorKey, cursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Where a page of a recording starts in each of its lists: `s`, `q`, `p` how many stage messages,
 * questions and polls of the frozen transcript came before (it never changes, so a position is an
 * index), `a` the last attendee given (attendees are read by agentId, keyset; '' before the first).
 */
export interface RecordingPosition {
  s: number;
  q: number;
  p: number;
  a: string;
}

/** What a read asks for: `limit` of each list, from `cursor` (the last page's nextCursor). */
export interface RecordingPage {
  limit: number;
  cursor?: string | undefined;
}

export const START: RecordingPosition = { s: 0, q: 0, p: 0, a: '' };
/** The first page at the contract's default limit (RecordingPageSchema). */
export const FIRST_PAGE: RecordingPage = { limit: 100 };

const codec = cursorCodec(
  z.strictObject({ s: CursorKey.int, q: CursorKey.int, p: CursorKey.int, a: z.string().max(100) }),
);

export function encodeRecordingCursor(position: RecordingPosition): string {
  return codec.encode(position);
}

/** 400 validation.failed for anything this list did not give. */
export function decodeRecordingCursor(cursor: string): RecordingPosition {
  return codec.decode(cursor);
}

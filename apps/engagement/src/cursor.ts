import { CursorKey, cursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Engagement's list cursors are integer sort keys (`s` a sequence, `u` an upvote count), each
 * within the `integer` column it is compared with; the codec itself is the one every list uses.
 */
export function encodeCursor(position: Record<string, number>): string {
  return cursorCodec(z.record(z.string(), CursorKey.int)).encode(position);
}

export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, number> {
  const shape = Object.fromEntries(keys.map((key) => [key, CursorKey.int])) as Record<
    K,
    typeof CursorKey.int
  >;
  return cursorCodec(z.strictObject(shape)).decode(cursor) as Record<K, number>;
}

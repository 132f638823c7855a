import { CursorKey, cursorCodec, type CursorCodec } from '@townhall/contracts';
import { z } from 'zod';

/**
 * Engagement's list cursors are integer sort keys (`s` a sequence, `u` an upvote count), each
 * within the `integer` column it is compared with; the codec itself is the one every list uses.
 * One codec per key shape, built once (lists are public reads on the live path).
 */
const codecs = new Map<string, CursorCodec<Record<string, number>>>();

function codecFor(keys: readonly string[]): CursorCodec<Record<string, number>> {
  const id = keys.join(',');
  let codec = codecs.get(id);
  if (!codec) {
    codec = cursorCodec(z.strictObject(Object.fromEntries(keys.map((key) => [key, CursorKey.int]))));
    codecs.set(id, codec);
  }
  return codec;
}

export function encodeCursor(position: Record<string, number>): string {
  return codecFor(Object.keys(position)).encode(position);
}

export function decodeCursor<K extends string>(cursor: string, keys: readonly K[]): Record<K, number> {
  return codecFor(keys).decode(cursor) as Record<K, number>;
}

import { z } from 'zod';
import { DomainError } from './domain-error.js';
import { isUuid } from './ids.js';
import { isInstantInRange } from './time.js';

/**
 * Keyset cursors, one codec for every list: the sort key of a page's last item as base64url
 * JSON, opaque to clients. A cursor that does not decode to its list's key shape (tampered,
 * truncated, from another list, out of range for the column it is compared with) is 400
 * `validation.failed` on `cursor`, decided before any query runs.
 */
export interface CursorCodec<Position> {
  encode(position: Position): string;
  decode(cursor: string): Position;
}

export function cursorCodec<S extends z.ZodType>(key: S): CursorCodec<z.output<S>> {
  return {
    encode: (position) => toBase64Url(JSON.stringify(position)),
    decode: (cursor) => {
      const parsed = key.safeParse(parseJson(fromBase64Url(cursor)));
      if (!parsed.success) throw invalidCursor();
      return parsed.data;
    },
  };
}

/** Cursor fields, each within what its column holds. */
export const CursorKey = {
  /** A timestamptz as the service wrote it (`toISOString()`). */
  instant: z.iso.datetime().refine((value) => isInstantInRange(Date.parse(value))),
  uuid: z.string().refine(isUuid),
  /** An `integer` column (sequences, counters). */
  int: z.number().int().min(0).max(2_147_483_647),
  /** A `bigint` column, carried as a decimal string. */
  // One refinement, not regex().refine(): zod runs a refinement even after a failed check.
  bigint: z
    .string()
    .refine((value) => /^(0|[1-9][0-9]{0,18})$/.test(value) && BigInt(value) <= 2n ** 63n - 1n),
} as const;

function invalidCursor(): DomainError {
  return new DomainError('validation.failed', 'cursor: not a cursor this list gave', [
    { field: 'cursor', message: 'is not a cursor this list gave' },
  ]);
}

const MAX_CURSOR_LENGTH = 512;

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(cursor: string): string | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import {
  columnInstant,
  hostileCursorText,
  isColumnBigint,
  isColumnInstant,
  isColumnInt,
  isColumnUuid,
} from '@townhall/testing';
import fc from 'fast-check';
import { z } from 'zod';
import { CursorKey, cursorCodec } from './cursor.js';
import { DomainError } from './domain-error.js';

/**
 * The one keyset-cursor codec every list uses, with each list's key shape: it gives back what it
 * encoded, and any other string is 400 validation.failed or a position every column holds.
 */
const shapes = {
  'events and tickets (instant, uuid)': {
    codec: cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid])),
    position: fc.tuple(columnInstant(), fc.uuid()),
    holds: (value: unknown) => Array.isArray(value) && isColumnInstant(value[0]) && isColumnUuid(value[1]),
  },
  'questions ({ u, s } integers)': {
    codec: cursorCodec(z.strictObject({ u: CursorKey.int, s: CursorKey.int })),
    position: fc.record({
      u: fc.integer({ min: 0, max: 2_147_483_647 }),
      s: fc.integer({ min: 0, max: 2_147_483_647 }),
    }),
    holds: (value: unknown) =>
      isColumnInt((value as { u?: unknown }).u) && isColumnInt((value as { s?: unknown }).s),
  },
  'ledger (bigint sequence)': {
    codec: cursorCodec(CursorKey.bigint),
    position: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
    holds: isColumnBigint,
  },
} as const;

describe.each(Object.entries(shapes))('keyset cursor of %s (property)', (_, shape) => {
  const codec = shape.codec as { encode(position: unknown): string; decode(cursor: string): unknown };

  it('decodes what it encoded', () => {
    fc.assert(
      fc.property(shape.position as fc.Arbitrary<unknown>, (position) => {
        expect(codec.decode(codec.encode(position))).toEqual(position);
      }),
    );
  });

  it('refuses any other string as 400 validation.failed, or decodes it to a position the columns hold', () => {
    fc.assert(
      fc.property(hostileCursorText(), (cursor) => {
        let decoded: unknown;
        try {
          decoded = codec.decode(cursor);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('validation.failed');
          return;
        }
        expect({ decoded, holds: shape.holds(decoded) }).toEqual({ decoded, holds: true });
      }),
      { numRuns: 2_000 },
    );
  });
});

import { DomainError } from '@townhall/contracts';
import { hostileCursorText, isColumnInt } from '@townhall/testing';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './cursor.js';

/** Stage, questions and polls page by integer keys (`s` a sequence, `u` an upvote count). */
describe('engagement list cursors (property)', () => {
  const int = fc.integer({ min: 0, max: 2_147_483_647 });

  it('decodes what it encoded, for every position a list can have', () => {
    fc.assert(
      fc.property(int, int, (s, u) => {
        expect(decodeCursor(encodeCursor({ s }), ['s'])).toEqual({ s });
        expect(decodeCursor(encodeCursor({ u, s }), ['u', 's'])).toEqual({ u, s });
      }),
    );
  });

  it.each([[['s']], [['u', 's']]] as const)(
    'refuses any other string as 400 validation.failed, or decodes %j to integers the columns hold',
    (keys) => {
      fc.assert(
        fc.property(hostileCursorText(), (cursor) => {
          let decoded: Record<string, unknown>;
          try {
            decoded = decodeCursor(cursor, keys);
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            expect((error as DomainError).code).toBe('validation.failed');
            return;
          }
          for (const key of keys)
            expect({ key, value: decoded[key], holds: isColumnInt(decoded[key]) }).toMatchObject({
              holds: true,
            });
        }),
        { numRuns: 2_000 },
      );
    },
  );
});

import { DomainError } from '@townhall/contracts';
import { columnInstant, hostileCursorText, isColumnInstant, isColumnUuid } from '@townhall/testing';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './cursor.js';

/** GET /events pages by (starts_at timestamptz, id uuid): whatever `cursor` says is compared with both. */
describe('events list cursor (property)', () => {
  it('decodes what it encoded, for every position a list can have', () => {
    fc.assert(
      fc.property(columnInstant(), fc.uuid(), (startsAt, id) => {
        expect(decodeCursor(encodeCursor({ startsAt, id }))).toEqual({ startsAt, id });
      }),
    );
  });

  it('refuses any other string as 400 validation.failed, or decodes it to values both columns hold', () => {
    fc.assert(
      fc.property(hostileCursorText(), (cursor) => {
        let decoded: unknown;
        try {
          decoded = decodeCursor(cursor);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('validation.failed');
          expect((error as DomainError).status).toBe(400);
          return;
        }
        const { startsAt, id } = decoded as { startsAt: unknown; id: unknown };
        expect({ startsAt, id, holds: isColumnInstant(startsAt) && isColumnUuid(id) }).toEqual({
          startsAt,
          id,
          holds: true,
        });
      }),
      { numRuns: 2_000 },
    );
  });
});

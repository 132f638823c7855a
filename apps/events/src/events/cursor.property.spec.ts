import { DomainError } from '@townhall/contracts';
import { columnInstant, hostileCursorText, isColumnInstant, isColumnUuid } from '@townhall/testing';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './cursor.js';

/**
 * GET /events pages by (listing_rank 0 or 1, starts_at timestamptz, id uuid): whatever `cursor`
 * says is compared with all three.
 */
describe('events list cursor (property)', () => {
  it('decodes what it encoded, for every position a list can have', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 }), columnInstant(), fc.uuid(), (rank, startsAt, id) => {
        expect(decodeCursor(encodeCursor({ rank, startsAt, id }))).toEqual({ rank, startsAt, id });
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
        const { rank, startsAt, id } = decoded as { rank: unknown; startsAt: unknown; id: unknown };
        const holds = (rank === 0 || rank === 1) && isColumnInstant(startsAt) && isColumnUuid(id);
        expect({ rank, startsAt, id, holds }).toEqual({ rank, startsAt, id, holds: true });
      }),
      { numRuns: 2_000 },
    );
  });
});

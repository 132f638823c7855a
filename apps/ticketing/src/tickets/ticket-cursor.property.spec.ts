import { DomainError } from '@townhall/contracts';
import { columnInstant, hostileCursorText, isColumnInstant, isColumnUuid } from '@townhall/testing';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { TicketBook } from './ticket-book.js';
import type { TicketRow } from './ticket-row.js';

/**
 * GET /me/tickets and /events/{id}/rsvps page by (created_at timestamptz, id uuid). The codec is
 * the service's own, so it is driven through `mine()` with a database that records the parameters
 * each query would bind: what the cursor decodes to is exactly what Postgres would be given.
 */
function serviceWith(rows: TicketRow[]) {
  const bound: unknown[][] = [];
  const dataSource = {
    query: async (_sql: string, parameters: unknown[] = []) => {
      bound.push(parameters);
      return rows;
    },
  };
  const service = new TicketBook(dataSource as unknown as DataSource, null as never);
  return { service, bound };
}

function ticket(createdAt: string, id: string): TicketRow {
  return {
    id,
    event_id: '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f',
    tier_id: 'general',
    holder_id: 'holder',
    status: 'active',
    price: '0',
    asset: null,
    network: null,
    transaction: null,
    created_at: new Date(createdAt),
    code: null,
    cancelled_at: null,
  };
}

describe('tickets list cursor (property)', () => {
  it('the nextCursor of a page brings the next query exactly after its last ticket', async () => {
    await fc.assert(
      fc.asyncProperty(columnInstant(), fc.uuid(), async (createdAt, id) => {
        const first = serviceWith([ticket(createdAt, id), ticket(createdAt, id)]);
        const page = await first.service.mine('holder', 1, undefined);
        expect(page.nextCursor).toEqual(expect.any(String));
        const next = serviceWith([]);
        await next.service.mine('holder', 1, page.nextCursor!);
        expect(next.bound[0]?.slice(1)).toEqual([createdAt, id]);
      }),
    );
  });

  it('refuses any other string as 400 validation.failed before a query, or binds values the columns hold', async () => {
    await fc.assert(
      fc.asyncProperty(hostileCursorText(), async (cursor) => {
        const { service, bound } = serviceWith([]);
        try {
          await service.mine('holder', 20, cursor);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('validation.failed');
          expect(bound).toEqual([]);
          return;
        }
        const [createdAt, id] = bound[0]?.slice(1) ?? [];
        if (cursor === '') return; // no cursor: the first page
        expect({ createdAt, id, holds: isColumnInstant(createdAt) && isColumnUuid(id) }).toMatchObject({
          holds: true,
        });
      }),
      { numRuns: 2_000 },
    );
  });
});

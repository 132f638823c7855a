import { DomainError } from '@townhall/contracts';
import { hostileCursorText, isColumnBigint } from '@townhall/testing';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { LedgerBook } from './ledger-book.js';

/**
 * GET /ledger pages by the entries' global sequence (a bigint). The codec is the ledger's own, so it
 * is driven through `entries()` with a database that records the parameters each query would bind.
 */
function bookWith(rows: Array<Record<string, unknown>>) {
  const bound: unknown[][] = [];
  const dataSource = {
    query: async (_sql: string, parameters: unknown[] = []) => {
      bound.push(parameters);
      return rows;
    },
  };
  const book = new LedgerBook(
    dataSource as unknown as DataSource,
    null as never,
    { faucet: false } as never,
    null as never,
  );
  return { book, bound };
}

function entry(seq: string): Record<string, unknown> {
  return {
    seq,
    id: '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f',
    type: 'FAUCET',
    agent_id: 'agent',
    amount: '1',
    asset: 'USDC',
    event_id: null,
    ticket_id: null,
    counterparty_id: null,
    created_at: new Date(0),
  };
}

describe('ledger list cursor (property)', () => {
  const sequence = fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String);

  it('the nextCursor of a page brings the next query exactly after its last entry', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (seq) => {
        const page = await bookWith([entry(seq), entry(seq)]).book.entries('agent', 1, undefined);
        expect(page.nextCursor).toEqual(expect.any(String));
        const next = bookWith([]);
        await next.book.entries('agent', 1, page.nextCursor!);
        expect(String(next.bound[0]?.[1])).toBe(seq);
      }),
    );
  });

  it('refuses any other string as 400 validation.failed before a query, or binds a sequence the column holds', async () => {
    await fc.assert(
      fc.asyncProperty(hostileCursorText(), async (cursor) => {
        const { book, bound } = bookWith([]);
        try {
          await book.entries('agent', 20, cursor);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('validation.failed');
          expect(bound).toEqual([]);
          return;
        }
        const after = bound[0]?.[1];
        expect({
          after,
          holds: isColumnBigint(typeof after === 'bigint' ? String(after) : after),
        }).toMatchObject({
          holds: true,
        });
      }),
      { numRuns: 2_000 },
    );
  });
});

import { outboxTablesV3, undoOutboxTablesV3 } from './outbox-tables-v3.js';

describe('outboxTablesV3: frozen, because a migration of each announcing service runs it', () => {
  it('is, byte for byte, what those migrations ran when they were written', () => {
    // A change here would give a database built afresh other tables than deployed ones have:
    // change the outbox with a new version and a new migration in each service instead.
    expect(outboxTablesV3('"ticketing"')).toEqual([
      'DELETE FROM "ticketing".outbox WHERE published_at IS NOT NULL',
      'DROP INDEX IF EXISTS "ticketing".outbox_unpublished_seq_idx',
    ]);
  });

  it('is undone by bringing back the index of unpublished rows, as the migrations wrote it', () => {
    expect(undoOutboxTablesV3('"ticketing"')).toEqual([
      'CREATE INDEX IF NOT EXISTS outbox_unpublished_seq_idx ON "ticketing".outbox (seq) WHERE published_at IS NULL',
    ]);
  });
});

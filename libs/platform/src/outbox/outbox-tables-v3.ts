/**
 * Version 3 of a schema's outbox: the relay deletes a row once JetStream acknowledged its event
 * (the stream is the record from then on), so the outbox holds only what is still to publish. The
 * rows published before are deleted, and the partial index of unpublished rows goes: every row is
 * one now, and the claim reads them in `seq` order by the unique index of `seq`. `published_at`
 * and its index stay while a process of the release before, which marks rows published, may run.
 * Frozen like versions 1 and 2: each announcing service's migration runs this text. `schema`
 * comes quoted (`"ticketing"`).
 */
export function outboxTablesV3(schema: string): string[] {
  return [
    `DELETE FROM ${schema}.outbox WHERE published_at IS NOT NULL`,
    `DROP INDEX IF EXISTS ${schema}.outbox_unpublished_seq_idx`,
  ];
}

/**
 * What undoes version 3 (a migration's `down`): the index of unpublished rows comes back. The rows
 * it deleted were in the stream already.
 */
export function undoOutboxTablesV3(schema: string): string[] {
  return [
    `CREATE INDEX IF NOT EXISTS outbox_unpublished_seq_idx ON ${schema}.outbox (seq) WHERE published_at IS NULL`,
  ];
}

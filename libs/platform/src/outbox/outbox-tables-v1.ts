/**
 * Version 1 of a schema's outbox and processed-events tables, exactly as the first migrations of
 * events, ticketing and engagement created them. Frozen: those migrations run this text, and a
 * database built afresh must get what deployed ones got, so it never changes (its spec pins every
 * byte). `schema` comes quoted (`"ticketing"`).
 */
export function outboxTablesV1(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${schema}.outbox (
      seq bigserial NOT NULL UNIQUE,
      id uuid PRIMARY KEY,
      type text NOT NULL,
      subject text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz NULL,
      published_at timestamptz NULL
    )`,
    // The relay's claim scans only what is still to publish, however many published rows remain.
    `CREATE INDEX IF NOT EXISTS outbox_unpublished_seq_idx ON ${schema}.outbox (seq) WHERE published_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS outbox_published_at_idx ON ${schema}.outbox (published_at) WHERE published_at IS NOT NULL`,
    `CREATE TABLE IF NOT EXISTS ${schema}.processed_events (
      consumer text NOT NULL,
      event_id uuid NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, event_id)
    )`,
  ];
}

/**
 * Version 2 of a schema's outbox: each claim names its holder (`claimed_by`, the claiming
 * process's Postgres application_name), so that a claim whose holder has no connection left (a
 * process that crashed) is taken over at once instead of after its lease. Frozen like version 1:
 * each announcing service's migration runs this text. `schema` comes quoted (`"ticketing"`).
 */
export function outboxTablesV2(schema: string): string[] {
  return [`ALTER TABLE ${schema}.outbox ADD COLUMN IF NOT EXISTS claimed_by text NULL`];
}

import type { SqlFunction } from '../sql-functions.js';

/**
 * What moves a schema's consumer claims from a `former` claim key to the durables' own names
 * (docs/architecture.md "Adding a consumer": the claim key is the durable's name): each row of
 * `<schema>.processed_events` under `former` is copied under every one of `durables`, so that no
 * event applied under the former key is applied again when JetStream hands it over once more. An
 * event of one durable is never delivered to another, so the copies under the others are never
 * asked for. The rows under `former` stay, for a process of the release before while a rollout
 * still runs it. Frozen like outbox-tables-v1.ts: the claim-keys migrations run this text (its
 * spec pins it). `schema` comes quoted (`"ticketing"`), the keys are literals of the migration.
 */
export function claimKeysV1(schema: string, former: string, durables: readonly string[]): string[] {
  return [
    `INSERT INTO ${schema}.processed_events (consumer, event_id, processed_at)
     SELECT durable, p.event_id, p.processed_at
       FROM ${schema}.processed_events p, unnest($2::text[]) AS durable
      WHERE p.consumer = $1
     ON CONFLICT (consumer, event_id) DO NOTHING`,
  ].map((sql) => bind(sql, former, durables));
}

/**
 * What undoes version 1 (a migration's `down`): whatever the durables claimed since is claimed
 * under `former` again, for the release before, and the durables' rows go.
 */
export function undoClaimKeysV1(schema: string, former: string, durables: readonly string[]): string[] {
  return [
    `INSERT INTO ${schema}.processed_events (consumer, event_id, processed_at)
     SELECT $1, event_id, min(processed_at) FROM ${schema}.processed_events
      WHERE consumer = ANY($2::text[]) GROUP BY event_id
     ON CONFLICT (consumer, event_id) DO NOTHING`,
    `DELETE FROM ${schema}.processed_events WHERE consumer = ANY($2::text[])`,
  ].map((sql) => bind(sql, former, durables));
}

/**
 * What keeps claims exclusive while a rollout runs both releases: the release before claims an
 * event under `former`, this one under a durable's name, so an event the one applied and the
 * other is handed again (an ack lost to a killed process) would be applied twice. A trigger on
 * `<schema>.processed_events` (the function `claim_former_key`, called for the rows of `durables`
 * only, so that other consumers' claims pay nothing) makes every claim under one of `durables`
 * claim under `former` too, in the same statement: where `former` holds the event already (the
 * release before applied it, or is applying it: the insert waits for that transaction), the
 * claim is not made, and the caller does not apply the event. The release
 * before claims under `former` alone, and so meets the rows this one writes there. The trigger
 * goes once no process of the release before runs: the release after's migration runs
 * `dropClaimFormerKey` and then `claimKeysV1` again (the claims the release before made since
 * under `former` alone), and the function leaves the schema's list. A rollback's `down` drops it
 * the same way.
 */
export function claimFormerKeyFunction(
  schema: string,
  former: string,
  durables: readonly string[],
): SqlFunction {
  const table = `${schema}.processed_events`;
  return {
    name: 'claim_former_key',
    sql: bind(
      `CREATE OR REPLACE FUNCTION ${schema}.claim_former_key() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO ${table} (consumer, event_id, processed_at) VALUES ($1, NEW.event_id, NEW.processed_at)
  ON CONFLICT (consumer, event_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $fn$;
DROP TRIGGER IF EXISTS claim_former_key ON ${table};
CREATE TRIGGER claim_former_key BEFORE INSERT ON ${table}
  FOR EACH ROW WHEN (NEW.consumer = ANY ($2::text[])) EXECUTE FUNCTION ${schema}.claim_former_key();`,
      former,
      durables,
    ),
  };
}

/**
 * What removes claimFormerKeyFunction from `schema` (a migration's statements): its function and
 * trigger, and the functions step's record of it, so that applying it again (after a rollback and
 * a new rollout) makes it anew.
 */
export function dropClaimFormerKey(schema: string): string[] {
  return [
    `DROP FUNCTION IF EXISTS ${schema}.claim_former_key() CASCADE`,
    `DO $do$ BEGIN
  IF to_regclass('${schema}.function_checksums') IS NOT NULL THEN
    DELETE FROM ${schema}.function_checksums WHERE name = 'claim_former_key';
  END IF;
END $do$`,
  ];
}

// The keys as SQL literals: a migration runs plain statements.
function bind(sql: string, former: string, durables: readonly string[]): string {
  const literal = (key: string) => {
    if (!/^[a-z][a-z0-9-]{0,62}$/.test(key)) throw new Error(`Not a claim key: ${JSON.stringify(key)}`);
    return `'${key}'`;
  };
  return sql
    .replaceAll('$1', literal(former))
    .replaceAll('$2::text[]', `ARRAY[${durables.map(literal).join(', ')}]`);
}

import { randomUUID } from 'node:crypto';
import type { CloudEvent, DomainEventVisibility } from '@townhall/contracts';
import type { EntityManager } from 'typeorm';
import type { SqlFunction } from '../sql-functions.js';
import { activeTraceCarrier } from '../observability/tracing.js';
import { outboxTablesV1 } from './outbox-tables-v1.js';
import { outboxTablesV2 } from './outbox-tables-v2.js';
import { outboxTablesV3 } from './outbox-tables-v3.js';

// Schema names are spliced into SQL (they cannot be bound parameters), so only plain
// identifiers are accepted.
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

// `townhall.<aggregate>.<verb>`: every token non-empty and free of NATS wildcards. Checked when
// the event is built and appended, because an event the stream cannot take would otherwise
// sit at the head of the outbox and block every event after it.
const DOMAIN_EVENT_SUBJECT = /^townhall(?:\.[^\s.*>]+)+$/;

// Keeps one INSERT well under Postgres' 65,535 bind parameters (4 per event).
const INSERT_CHUNK = 1_000;

/** `"schema"`, after checking the name is a plain identifier. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Not a plain schema name: ${JSON.stringify(schema)}`);
  return `"${schema}"`;
}

/**
 * The DDL of a schema's outbox and processed-events (consumer dedupe) tables as the relay and the
 * consumers use them today: what this library's tests create, and what a new service's first
 * migration runs: version 1 (outbox-tables-v1.ts), then 2 and 3 (outbox-tables-v2.ts, -v3.ts). A
 * change to the tables is a new version beside them and a migration in each service, never an
 * edit of one.
 */
export function outboxMigrationSql(schema: string): string[] {
  const s = quoteSchema(schema);
  return [...outboxTablesV1(s), ...outboxTablesV2(s), ...outboxTablesV3(s)];
}

/**
 * `<schema>.announce(events jsonb)`: appends an array of CloudEvents (built by
 * `OutboxWriter.prepare`, in this order) to the schema's outbox. For hot paths written as one
 * server-side function: the function calls it in its own transaction, so its state change and
 * its domain events still commit together, in one round trip from the service. A service whose
 * functions announce lists it with its own (`createSchemaDataSource({ functions })`).
 *
 * PL/pgSQL, not SQL: Postgres never inlines a SQL function whose body is an INSERT, and parses
 * and plans such a function's body again at every call, where PL/pgSQL keeps the plan for the
 * session (measured: about 100 us of the database's CPU per call on the project's machines).
 */
export function outboxAnnounceFunction(schema: string): SqlFunction {
  const s = quoteSchema(schema);
  return {
    name: 'announce',
    sql: `CREATE OR REPLACE FUNCTION ${s}.announce(events jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${s}.outbox (id, type, subject, payload)
  SELECT (e->>'id')::uuid, e->>'type', e->>'subject', e
  FROM jsonb_array_elements(events) WITH ORDINALITY AS t(e, n) ORDER BY n;
END $$`,
  };
}

/**
 * What the outbox stamps on every event it will append: its id, source, time and trace. A
 * server-side function that builds an event itself (its type, subject and data known only to
 * it) is given the stamp and adds the rest.
 */
export type EventStamp = Omit<CloudEvent, 'type' | 'subject' | 'visibility' | 'data'>;

export function eventStamp(source: string, time: Date = new Date()): EventStamp {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source,
    time: time.toISOString(),
    datacontenttype: 'application/json',
    // The write's span (CloudEvents Distributed Tracing extension), while the process traces.
    ...activeTraceCarrier(),
  };
}

export function domainEvent<T>(input: {
  source: string;
  type: string;
  subject: string;
  data: T;
  time?: Date;
  visibility?: DomainEventVisibility | undefined;
}): CloudEvent<T> {
  assertDomainEventSubject(input.type);
  return {
    ...eventStamp(input.source, input.time),
    type: input.type,
    subject: input.subject,
    ...(input.visibility ? { visibility: input.visibility } : {}),
    data: input.data,
  };
}

/** Inserts events into the outbox using the caller's transaction (EntityManager of a running TypeORM transaction). */
export async function appendToOutbox(
  manager: EntityManager,
  schema: string,
  events: readonly CloudEvent[],
): Promise<void> {
  assertInTransaction(manager, 'appendToOutbox');
  const table = `${quoteSchema(schema)}.outbox`;
  for (const event of events) assertDomainEventSubject(event.type);
  for (let start = 0; start < events.length; start += INSERT_CHUNK) {
    const params: unknown[] = [];
    // One multi-row VALUES list: seq follows the order of the events as given.
    const rows = events.slice(start, start + INSERT_CHUNK).map((event) => {
      params.push(event.id, event.type, event.subject, JSON.stringify(event));
      const n = params.length;
      return `($${n - 3}, $${n - 2}, $${n - 1}, $${n}::jsonb)`;
    });
    await manager.query(
      `INSERT INTO ${table} (id, type, subject, payload) VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

/**
 * Exactly-once effects for a consumer: inside the caller's transaction, records (consumer, eventId);
 * returns false if it was already processed (the caller then skips its effect).
 * A concurrent delivery of the same event waits on the primary key until this transaction ends,
 * then sees the row (false) if it committed or claims it (true) if it rolled back.
 */
export async function claimEventOnce(
  manager: EntityManager,
  schema: string,
  consumer: string,
  eventId: string,
): Promise<boolean> {
  assertInTransaction(manager, 'claimEventOnce');
  const rows: unknown[] = await manager.query(
    `INSERT INTO ${quoteSchema(schema)}.processed_events (consumer, event_id) VALUES ($1, $2)
     ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
    [consumer, eventId],
  );
  return rows.length === 1;
}

/**
 * claimEventOnce for a batch: the ids (of `events`) not processed before by `consumer`, now
 * claimed in the caller's transaction. An id twice in the batch is claimed once.
 */
export async function claimEventsOnce(
  manager: EntityManager,
  schema: string,
  consumer: string,
  eventIds: readonly string[],
): Promise<Set<string>> {
  assertInTransaction(manager, 'claimEventsOnce');
  const rows: Array<{ event_id: string }> = await manager.query(
    `INSERT INTO ${quoteSchema(schema)}.processed_events (consumer, event_id)
     SELECT $1, id FROM unnest($2::uuid[]) AS t(id)
     ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
    [consumer, eventIds],
  );
  return new Set(rows.map((row) => row.event_id));
}

// A durable consumer's name, spliced into SQL as a literal by freshEventsCte.
const CONSUMER_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * claimEventsOnce as the first step of a consumer's one statement (a batch handled in one round
 * trip, its own transaction): `WITH fresh AS (...)` claims the event ids of `$1::uuid[]` for
 * `consumer` and yields those not processed before as `fresh(event_id)`, an id twice in `$1`
 * once. The statement joins its rows to `fresh` so that only those take effect.
 */
export function freshEventsCte(schema: string, consumer: string): string {
  if (!CONSUMER_NAME.test(consumer)) throw new Error(`Not a consumer's name: ${JSON.stringify(consumer)}`);
  return `WITH fresh AS (
  INSERT INTO ${quoteSchema(schema)}.processed_events (consumer, event_id)
  SELECT '${consumer}', id FROM unnest($1::uuid[]) AS t(id)
  ON CONFLICT (consumer, event_id) DO NOTHING
  RETURNING event_id
)`;
}

function assertDomainEventSubject(type: string): void {
  if (!DOMAIN_EVENT_SUBJECT.test(type)) {
    throw new Error(
      `A domain event type must be a subject townhall.<aggregate>.<verb>: ${JSON.stringify(type)}`,
    );
  }
}

// Outside a transaction the row would commit on its own: an event without its state change
// (outbox), or a dedupe mark without its effect (processed_events).
function assertInTransaction(manager: EntityManager, caller: string): void {
  if (manager.queryRunner?.isTransactionActive !== true) {
    throw new Error(`${caller} needs the EntityManager of a running transaction`);
  }
}

// Migration 1768050000000 (src/migrations/1768050000000-claim-keys.ts): the counts' three durables
// claim under their own names, and what was counted under the former key `events-counts` stays
// counted.
import { randomUUID } from 'node:crypto';
import { TicketTopics, type DomainEventOf } from '@townhall/contracts';
import { domainEvent, migrateSchema } from '@townhall/platform/service';
import { anIssuedTicketView, schemaUnderTest, type SchemaUnderTest } from '@townhall/testing';
import { EventCounts } from '../src/counts/event-counts.js';
import { createEventsDataSource } from '../src/data-source.js';
import { ClaimKeys1768050000000 } from '../src/migrations/1768050000000-claim-keys.js';

const DURABLES = ['events-ticket-counts', 'events-question-counts', 'events-poll-counts'];

describe('claim keys of the events counts: the durable names', () => {
  let schema: SchemaUnderTest;

  beforeAll(async () => {
    schema = await schemaUnderTest(createEventsDataSource);
  });
  afterAll(async () => {
    await schema?.close();
  });

  const claimsOf = async (eventId: string) =>
    (
      await schema.query<{ consumer: string }>(
        'SELECT consumer FROM events.processed_events WHERE event_id = $1 ORDER BY consumer',
        [eventId],
      )
    ).map((row) => row.consumer);
  const migrate = (step: 'up' | 'down') => schema.migrate(new ClaimKeys1768050000000(), step);
  const ticketsSold = async (eventId: string) =>
    (
      await schema.query<{ tickets_sold: Record<string, number> }>(
        'SELECT tickets_sold FROM events.events WHERE id = $1',
        [eventId],
      )
    )[0]?.tickets_sold;

  it('a ticket counted under the former key is not counted again once handed over after the migration', async () => {
    const [row] = await schema.query<{ id: string }>(
      `INSERT INTO events.events (title, starts_at, ends_at, timezone, host_id, capacity, ticketing)
       VALUES ('AMA', now() + interval '1 day', now() + interval '25 hours', 'UTC', 'host', 100, '{"mode":"free"}')
       RETURNING id`,
    );
    const eventId = row!.id;
    const issued: DomainEventOf<'townhall.ticket.>'> = {
      ...domainEvent({
        source: 'townhall/ticketing',
        type: TicketTopics.issued,
        subject: eventId,
        data: anIssuedTicketView(eventId, randomUUID()),
      }),
      type: TicketTopics.issued,
    };
    // The schema as the release before has it (no durable claims, no claim_former_key).
    await migrate('down');
    // Counted by the release before: its claim under `events-counts`, its count in the row.
    await schema.query(
      `INSERT INTO events.processed_events (consumer, event_id) VALUES ('events-counts', $1)`,
      [issued.id],
    );
    await schema.query(`UPDATE events.events SET tickets_sold = '{"general": 1}' WHERE id = $1`, [eventId]);
    // The migrate command: the migration, then the functions (claim_former_key made anew).
    await migrate('up');
    expect(await migrateSchema(schema.dataSource)).toEqual(['function events.claim_former_key']);
    expect(await claimsOf(issued.id)).toEqual(['events-counts', ...DURABLES].sort());
    // JetStream hands it over again (an acknowledgement lost across the upgrade): it stays one.
    const counts = new EventCounts(schema.dataSource, schema.outbox);
    await counts.countTickets([issued]);
    expect(await ticketsSold(eventId)).toEqual({ general: 1 });

    // During the rollout, a replica of the release before counts a ticket under `events-counts`
    // alone; handed over again to this release, it stays counted once.
    const later = { ...issued, id: randomUUID(), data: anIssuedTicketView(eventId, randomUUID()) };
    await schema.query(
      `INSERT INTO events.processed_events (consumer, event_id) VALUES ('events-counts', $1)`,
      [later.id],
    );
    await schema.query(`UPDATE events.events SET tickets_sold = '{"general": 2}' WHERE id = $1`, [eventId]);
    await counts.countTickets([later]);
    expect(await ticketsSold(eventId)).toEqual({ general: 2 });
    // And one this release counted, handed to the release before, is claimed already there.
    const fresh = { ...issued, id: randomUUID(), data: anIssuedTicketView(eventId, randomUUID()) };
    await counts.countTickets([fresh]);
    expect(await ticketsSold(eventId)).toEqual({ general: 3 });
    expect(await claimsOf(fresh.id)).toEqual(['events-counts', 'events-ticket-counts']);
  });

  it('down gives the former key what the durables claimed since, and drops their names', async () => {
    const since = randomUUID();
    await schema.query(
      `INSERT INTO events.processed_events (consumer, event_id) VALUES ('events-question-counts', $1)`,
      [since],
    );
    await migrate('down');
    expect(await claimsOf(since)).toEqual(['events-counts']);
    const [left] = await schema.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events.processed_events WHERE consumer <> 'events-counts'`,
    );
    expect(left?.n).toBe(0);
    await migrate('up');
  });
});

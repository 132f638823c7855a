// Engagement's attendance (src/projection/ticket-attendance.ts) as its consumer hands it batches
// of ticketing's domain events: each batch one statement on a migrated Postgres, each applied once.
import { randomUUID } from 'node:crypto';
import { TicketTopics, type DomainEventOf, type TicketView } from '@townhall/contracts';
import { domainEvent } from '@townhall/platform/service';
import { anIssuedTicketView, schemaUnderTest, type SchemaUnderTest } from '@townhall/testing';
import { createEngagementDataSource } from '../src/data-source.js';
import { TicketAttendance } from '../src/projection/ticket-attendance.js';

describe('ticket attendance: a batch of ticket events in one statement', () => {
  let schema: SchemaUnderTest;
  let attendance: TicketAttendance;

  beforeAll(async () => {
    schema = await schemaUnderTest(createEngagementDataSource);
    attendance = new TicketAttendance(schema.dataSource, schema.outbox);
  });
  afterAll(async () => {
    await schema?.close();
  });

  const ticketEvent = (
    type: (typeof TicketTopics)[keyof typeof TicketTopics],
    ticket: TicketView,
  ): DomainEventOf<'townhall.ticket.>'> => ({
    ...domainEvent({ source: 'townhall/ticketing', type, subject: ticket.eventId, data: ticket }),
    type,
  });
  const issued = (ticket: TicketView) => ticketEvent(TicketTopics.issued, ticket);
  const cancelled = (ticket: TicketView) =>
    ticketEvent(TicketTopics.cancelled, {
      ...ticket,
      status: 'cancelled',
      cancelledAt: '2030-01-01T00:00:00.000Z',
    });
  const rowsOf = (eventId: string) =>
    schema.query<{ agent_id: string; cancelled: boolean }>(
      `SELECT agent_id, cancelled_at IS NOT NULL AS cancelled FROM engagement.attendance
        WHERE event_id = $1 ORDER BY agent_id`,
      [eventId],
    );

  it('records each ticket once, whatever the order of its issue and cancellation, in a batch or across batches', async () => {
    const eventId = randomUUID();
    const [kept, gone, late] = ['agent-a', 'agent-b', 'agent-c'].map((agent) =>
      anIssuedTicketView(eventId, agent),
    );
    const first = issued(kept!);
    // In one batch: a ticket issued twice (redelivered), one issued and cancelled, one cancelled
    // before its issue arrives.
    await attendance.record([first, first, cancelled(gone!), issued(gone!), cancelled(late!)]);
    // The issue of the late one arrives after its cancellation: it stays cancelled.
    await attendance.record([issued(late!)]);
    expect(await rowsOf(eventId)).toEqual([
      { agent_id: 'agent-a', cancelled: false },
      { agent_id: 'agent-b', cancelled: true },
      { agent_id: 'agent-c', cancelled: true },
    ]);
    // The first batch again (an acknowledgement lost): nothing changes.
    await attendance.record([first, cancelled(gone!)]);
    expect(await rowsOf(eventId)).toHaveLength(3);
  });
});

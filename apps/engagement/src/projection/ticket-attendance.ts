import { Injectable } from '@nestjs/common';
import { TicketTopics, type DomainEventOf } from '@townhall/contracts';
import { freshEventsCte, OutboxWriter, OnDomainEvent, preparedStatement } from '@townhall/platform/service';
import { ENGAGEMENT_SCHEMA } from '../data-source.js';
import { DataSource } from 'typeorm';

export const TICKET_ATTENDANCE_CONSUMER = 'engagement-tickets';
/**
 * How long a batch waits for more tickets after its first: a sale's tickets are recorded in one
 * statement per batch, not one each. Until a ticket is recorded, its holder is authorized by
 * ticketing over NATS (Participants), so the wait refuses nobody.
 */
const GATHER_MS = 100;

/**
 * A batch of ticket events in one statement, a transaction of its own: the events not applied
 * before are claimed (processed_events), and each ticket among them upserted once (a ticket twice
 * in the batch: cancelled wins). $1 the domain events' ids, and for each its ticket, event,
 * holder, issue time and cancellation time (null when issued).
 */
const RECORD_BATCH = `${freshEventsCte(ENGAGEMENT_SCHEMA, TICKET_ATTENDANCE_CONSUMER)}
INSERT INTO engagement.attendance AS a (ticket_id, event_id, agent_id, issued_at, cancelled_at)
SELECT r.ticket_id, min(r.event_id::text)::uuid, min(r.agent_id), min(r.issued_at), max(r.cancelled_at)
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::timestamptz[])
       AS r(id, ticket_id, event_id, agent_id, issued_at, cancelled_at)
  JOIN fresh ON fresh.event_id = r.id
 GROUP BY r.ticket_id
ON CONFLICT (ticket_id) DO UPDATE SET cancelled_at = COALESCE(EXCLUDED.cancelled_at, a.cancelled_at)`;

/**
 * The tickets of each event, from ticketing's domain events, for the recording's attendance and
 * the attendee check of questions. Each event is applied once (processed_events); issued and
 * cancelled are both upserts, so their order does not matter.
 */
@Injectable()
export class TicketAttendance {
  private readonly recordBatch: (values: unknown[]) => Promise<unknown[]>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    this.recordBatch = preparedStatement(dataSource, 'engagement.record_attendance', RECORD_BATCH);
  }

  /** What has arrived (and what arrives within GATHER_MS), in one statement (RECORD_BATCH). */
  @OnDomainEvent('townhall.ticket.>', {
    durable: TICKET_ATTENDANCE_CONSUMER,
    batch: true,
    gatherMs: GATHER_MS,
  })
  async record(events: Array<DomainEventOf<'townhall.ticket.>'>>): Promise<void> {
    const relevant = events.filter(
      (event) => event.type === TicketTopics.issued || event.type === TicketTopics.cancelled,
    );
    if (relevant.length === 0) return;
    const tickets = relevant.map((event) => {
      const ticket = event.data;
      const cancelledAt = event.type === TicketTopics.cancelled ? (ticket.cancelledAt ?? event.time) : null;
      return { id: event.id, ticket, cancelledAt };
    });
    // Retried as every statement is when Postgres picks it as a deadlock victim; announces nothing.
    await this.outbox.runStatement(
      () =>
        this.recordBatch([
          tickets.map(({ id }) => id),
          tickets.map(({ ticket }) => ticket.id),
          tickets.map(({ ticket }) => ticket.eventId),
          tickets.map(({ ticket }) => ticket.holderId),
          tickets.map(({ ticket }) => ticket.createdAt),
          tickets.map(({ cancelledAt }) => cancelledAt),
        ]),
      { committed: () => [] },
    );
  }
}

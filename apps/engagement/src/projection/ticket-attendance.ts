import { Injectable } from '@nestjs/common';
import { TicketTopics, type CloudEvent, type TicketView } from '@townhall/contracts';
import { OutboxWriter, claimEventsOnce, OnDomainEvent } from '@townhall/platform/service';
import { ENGAGEMENT_SCHEMA } from '../data-source.js';

export const TICKET_ATTENDANCE_CONSUMER = 'engagement-tickets';

interface AttendanceRow {
  ticketId: string;
  eventId: string;
  agentId: string;
  issuedAt: string;
  cancelledAt: string | null;
}

/**
 * The tickets of each event, from ticketing's domain events, for the recording's attendance.
 * Each event is applied once (claimEventsOnce); issued and cancelled are both upserts, so their
 * order does not matter.
 */
@Injectable()
export class TicketAttendance {
  constructor(private readonly outbox: OutboxWriter) {}

  /** What has arrived, in one transaction and one upsert (a ticket twice in it: cancelled wins). */
  @OnDomainEvent('townhall.ticket.>', { durable: TICKET_ATTENDANCE_CONSUMER, batch: true })
  async record(events: CloudEvent[]): Promise<void> {
    const relevant = events.filter(
      (event) => event.type === TicketTopics.issued || event.type === TicketTopics.cancelled,
    );
    if (relevant.length === 0) return;
    await this.outbox.run(async (manager) => {
      const fresh = await claimEventsOnce(
        manager,
        ENGAGEMENT_SCHEMA,
        TICKET_ATTENDANCE_CONSUMER,
        relevant.map((event) => event.id),
      );
      const tickets = new Map<string, AttendanceRow>();
      for (const event of relevant) {
        if (!fresh.delete(event.id)) continue;
        const ticket = event.data as TicketView;
        const cancelledAt = event.type === TicketTopics.cancelled ? (ticket.cancelledAt ?? event.time) : null;
        const seen = tickets.get(ticket.id);
        tickets.set(ticket.id, {
          ticketId: ticket.id,
          eventId: ticket.eventId,
          agentId: ticket.holderId,
          issuedAt: ticket.createdAt,
          cancelledAt: cancelledAt ?? seen?.cancelledAt ?? null,
        });
      }
      if (tickets.size === 0) return;
      const rows = [...tickets.values()];
      await manager.query(
        `INSERT INTO engagement.attendance AS a (ticket_id, event_id, agent_id, issued_at, cancelled_at)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::timestamptz[])
         ON CONFLICT (ticket_id) DO UPDATE SET cancelled_at = COALESCE(EXCLUDED.cancelled_at, a.cancelled_at)`,
        [
          rows.map((row) => row.ticketId),
          rows.map((row) => row.eventId),
          rows.map((row) => row.agentId),
          rows.map((row) => row.issuedAt),
          rows.map((row) => row.cancelledAt),
        ],
      );
    });
  }
}

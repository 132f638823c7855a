import { Injectable } from '@nestjs/common';
import { TicketTopics, type CloudEvent, type TicketView } from '@townhall/contracts';
import { Changes, claimEventOnce } from '@townhall/platform/service';
import { ENGAGEMENT_SCHEMA } from '../data-source.js';

export const TICKET_ATTENDANCE_CONSUMER = 'engagement-tickets';
export const TICKET_SUBJECTS = ['townhall.ticket.>'];

/**
 * The tickets of each event, from ticketing's domain events, for the recording's attendance.
 * Each event is applied once; issued and cancelled are both upserts, so their order does not matter.
 */
@Injectable()
export class TicketAttendance {
  constructor(private readonly changes: Changes) {}

  async handle(event: CloudEvent): Promise<void> {
    if (event.type !== TicketTopics.issued && event.type !== TicketTopics.cancelled) return;
    const ticket = event.data as TicketView;
    await this.changes.run(async (manager) => {
      if (!(await claimEventOnce(manager, ENGAGEMENT_SCHEMA, TICKET_ATTENDANCE_CONSUMER, event.id))) return;
      await manager.query(
        `INSERT INTO engagement.attendance AS a (ticket_id, event_id, agent_id, issued_at, cancelled_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (ticket_id) DO UPDATE SET cancelled_at = COALESCE(EXCLUDED.cancelled_at, a.cancelled_at)`,
        [
          ticket.id,
          ticket.eventId,
          ticket.holderId,
          ticket.createdAt,
          event.type === TicketTopics.cancelled ? (ticket.cancelledAt ?? event.time) : null,
        ],
      );
    });
  }
}

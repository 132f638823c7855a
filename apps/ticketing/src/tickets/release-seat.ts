import { Injectable } from '@nestjs/common';
import { DomainError, TicketTopics, type TicketView } from '@townhall/contracts';
import { Changes, queryRows } from '@townhall/platform/service';
import { releaseSeat } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/** The holder gives back a free ticket; paid tickets are refunded only by cancelling the event. */
@Injectable()
export class ReleaseSeat {
  constructor(
    private readonly changes: Changes,
    private readonly book: TicketBook,
  ) {}

  release(caller: string, eventId: string): Promise<TicketView> {
    return this.changes.run(async (manager) => {
      const ticket = await this.book.activeTicket(eventId, caller, { manager, lock: true });
      if (!ticket) throw new DomainError('ticket.not_found', 'You hold no ticket for this event');
      if (ticket.price !== '0')
        throw new DomainError(
          'ticket.not_cancellable',
          'Paid tickets are refunded when the event is cancelled',
        );
      const [row] = await queryRows<TicketRow>(
        manager,
        `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
        [ticket.id],
      );
      await releaseSeat(manager, ticket.event_id, ticket.tier_id);
      const view = toTicket(row!);
      await this.changes.announce(manager, [
        { type: TicketTopics.cancelled, subject: view.eventId, data: view },
      ]);
      return view;
    });
  }
}

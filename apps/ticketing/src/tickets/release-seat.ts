import { Injectable } from '@nestjs/common';
import { DomainError, TicketTopics, type TicketView } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { lockSeats } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/**
 * The holder gives back a free ticket; paid tickets are refunded only by cancelling the event. The
 * seat goes to the waitlist first, in the same transaction.
 */
@Injectable()
export class ReleaseSeat {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
    private readonly waitlist: WaitlistSeats,
  ) {}

  release(caller: string, eventId: string): Promise<TicketView> {
    return this.outbox.run(async (manager) => {
      const ticket = await this.book.activeTicket(eventId, caller, { manager, lock: true });
      if (!ticket) throw new DomainError('ticket.not_found', 'You hold no ticket for this event');
      if (ticket.price !== '0')
        throw new DomainError(
          'ticket.not_cancellable',
          'Paid tickets are refunded when the event is cancelled',
        );
      await lockSeats(manager, ticket.event_id);
      const [row] = await queryRows<TicketRow>(
        manager,
        `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
        [ticket.id],
      );
      const view = toTicket(row!);
      await this.outbox.announce(manager, [
        { type: TicketTopics.cancelled, subject: view.eventId, data: view },
      ]);
      // The seat goes to the first agent of the waitlist, else back on sale.
      await this.waitlist.seatFreed(manager, ticket.event_id, ticket.tier_id);
      return view;
    });
  }
}

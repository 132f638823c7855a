import { Injectable } from '@nestjs/common';
import { TicketTopics, type TicketReply, type TicketView } from '@townhall/contracts';
import { OutboxWriter } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { tiersOf, type EventRow } from '../projection/event-row.js';
import { seatProblem, takeSeat } from '../db/functions.js';
import { AlreadyHolding, insertTicket } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';

/** A free ticket: a seat taken and the ticket issued, for an RSVP or for a series follower. */
@Injectable()
export class TakeSeat {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
  ) {}

  async free(event: EventRow, holder: string): Promise<TicketReply> {
    try {
      const ticket = await this.outbox.run((manager) => this.freeIn(manager, event, holder));
      return { ticket, created: true, settlement: null };
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, holder);
      throw error;
    }
  }

  /** Inside the caller's transaction (a follower's savepoint). */
  async freeIn(manager: EntityManager, event: EventRow, holder: string): Promise<TicketView> {
    const [tier] = tiersOf(event.ticketing, event.capacity);
    const tierId = tier!.tierId;
    const seat = await takeSeat(manager, { eventId: event.event_id, tierId });
    if (seat.outcome === 'refused') throw seatProblem(seat, tierId);
    const row = await insertTicket(manager, {
      eventId: event.event_id,
      tierId,
      holderId: holder,
      price: '0',
      asset: null,
      status: 'active',
    });
    const view = toTicket(row);
    await this.outbox.announce(manager, [{ type: TicketTopics.issued, subject: view.eventId, data: view }]);
    return view;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, type TicketReply, type TicketView } from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { tiersOf, type EventRow } from '../projection/event-row.js';
import { codeProblem, takeSeat, takeSeatFor, useCode } from '../db/functions.js';
import { seatProblem } from './sale-refusals.js';
import { AlreadyHolding, insertTicket } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';

/** What a ticket without payment is for: the tier (a free event's only one by default) and the code that made it free. */
export interface FreeTicket {
  tierId?: string;
  /** The host's code (docs/product.md "Codes"): its use is counted with the ticket, which records it. */
  code?: string;
}

/**
 * A ticket without payment: a free event's seat (an RSVP, a series follower, an approval), or a
 * paid tier's seat a code makes free. The seat is taken and the ticket issued in one transaction,
 * with the code's use when there is one.
 */
@Injectable()
export class TakeSeat {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async free(event: EventRow, holder: string, ticket: FreeTicket = {}): Promise<TicketReply> {
    try {
      const issued = await this.outbox.run((manager) => this.freeIn(manager, event, holder, ticket));
      return { ticket: issued, created: true, settlement: null };
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, holder);
      throw error;
    }
  }

  /**
   * Inside the caller's transaction (a follower's savepoint, an approval). A paid tier's seat is
   * the holder's waitlist offer (or an approval's hold) if it has one, else one from the sale.
   */
  async freeIn(
    manager: EntityManager,
    event: EventRow,
    holder: string,
    { tierId = tiersOf(event.ticketing, event.capacity)[0]!.tierId, code }: FreeTicket = {},
  ): Promise<TicketView> {
    const at = this.clock();
    const seat =
      event.ticketing.mode === 'free'
        ? await takeSeat(manager, { eventId: event.event_id, tierId })
        : await takeSeatFor(manager, this.outbox, { eventId: event.event_id, tierId, agentId: holder, at });
    if (seat.outcome === 'refused') throw seatProblem(seat, tierId);
    let recorded: string | null = null;
    if (code !== undefined) {
      const used = await useCode(manager, { eventId: event.event_id, code, at });
      if (used.outcome === 'refused') throw codeProblem(used.refusal);
      recorded = used.code;
    }
    const row = await insertTicket(manager, {
      eventId: event.event_id,
      tierId,
      holderId: holder,
      price: '0',
      asset: null,
      status: 'active',
      code: recorded,
    });
    const view = toTicket(row);
    await this.outbox.announce(manager, [{ type: TicketTopics.issued, subject: view.eventId, data: view }]);
    return view;
  }
}

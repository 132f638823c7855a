import { Inject, Injectable } from '@nestjs/common';
import type { RsvpReply } from '@townhall/contracts';
import { Changes } from '@townhall/platform/service';
import type { Facilitator } from '@townhall/x402';
import { type PaymentSettlement, type Purchase } from '../payments/payment-problems.js';
import { FACILITATOR } from '../tokens.js';
import { FacilitatorSettlements } from './facilitator-settlements.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { AlreadyHolding, insertTicket } from './seats.js';
import { TicketBook } from './ticket-book.js';

/**
 * A paid ticket through any x402 facilitator over HTTP. After /verify, one transaction takes the
 * seat, writes a pending ticket and records the payment as settling; no transaction is open
 * while the facilitator works. Its answer to /settle concludes the payment (FacilitatorSettlements):
 * settled, the ticket is issued (201); refused, the seat is released (402); no answer (a timeout,
 * a 5xx), the ticket stays pending with its seat (202) and the payment is asked about again
 * until the facilitator says what happened.
 */
@Injectable()
export class SettleFacilitatorPayment implements PaymentSettlement {
  constructor(
    private readonly changes: Changes,
    private readonly book: TicketBook,
    private readonly settlements: FacilitatorSettlements,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    private readonly waitlist: WaitlistSeats,
  ) {}

  async settle({ event, caller, payload, requirements, refuse }: Purchase): Promise<RsvpReply> {
    const facilitator = this.facilitator;
    if (!facilitator) throw new Error('X402_FACILITATOR=http needs X402_FACILITATOR_URL');
    const verified = await facilitator.verify(payload, requirements);
    if (!verified.isValid) {
      throw await refuse(
        'payment.invalid',
        `The facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}`,
        verified.invalidReason ?? 'invalid_payment',
      );
    }
    const tierId = requirements.extra.tierId;
    let ticketId: string;
    try {
      ticketId = await this.changes.run(async (manager) => {
        // The seat a waitlist offer holds for the caller, or one from the sale.
        await this.waitlist.takeSeatFor(manager, event.event_id, tierId, caller);
        const pending = await insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: requirements.maxAmountRequired,
          asset: requirements.asset,
          status: 'pending',
        });
        await this.settlements.open(manager, pending, { payer: caller, payload, requirements });
        return pending.id;
      });
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, caller);
      throw error;
    }
    const outcome = await this.settlements.settle(ticketId, payload, requirements);
    if (outcome.state === 'voided') {
      throw await refuse(
        'payment.invalid',
        `Settlement failed: ${outcome.message ?? outcome.reason}`,
        outcome.reason,
      );
    }
    return {
      ticket: outcome.ticket,
      created: true,
      settlement: outcome.state === 'settled' ? outcome.settlement : null,
    };
  }
}

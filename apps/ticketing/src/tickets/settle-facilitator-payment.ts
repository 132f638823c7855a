import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, type RsvpReply } from '@townhall/contracts';
import { Changes, queryRows } from '@townhall/platform/service';
import type { Facilitator } from '@townhall/x402';
import { type PaymentSettlement, type Purchase } from '../payments/payment-problems.js';
import { FACILITATOR } from '../tokens.js';
import { AlreadyHolding, insertTicket, releaseSeat, takeSeat } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/**
 * A paid ticket through any x402 facilitator over HTTP: the seat is reserved (a pending ticket)
 * before /settle and released if settlement fails; no transaction is open while the facilitator
 * works.
 */
@Injectable()
export class SettleFacilitatorPayment implements PaymentSettlement {
  constructor(
    private readonly changes: Changes,
    private readonly book: TicketBook,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
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
    let pending: TicketRow;
    try {
      pending = await this.changes.run(async (manager) => {
        await takeSeat(manager, event.event_id, tierId);
        return insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: requirements.maxAmountRequired,
          asset: requirements.asset,
          status: 'pending',
        });
      });
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, caller);
      throw error;
    }
    const settled = await facilitator.settle(payload, requirements);
    if (!settled.success) {
      await this.changes.run(async (manager) => {
        await queryRows(
          manager,
          `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1`,
          [pending.id],
        );
        await releaseSeat(manager, event.event_id, tierId);
      });
      throw await refuse(
        'payment.invalid',
        `Settlement failed: ${settled.errorReason ?? 'unknown reason'}`,
        settled.errorReason ?? 'settlement_failed',
      );
    }
    const ticket = await this.changes.run(async (manager) => {
      const [row] = await queryRows<TicketRow>(
        manager,
        `UPDATE ticketing.tickets SET status = 'active' WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
        [pending.id],
      );
      const view = toTicket(row!);
      await this.changes.announce(manager, [
        { type: TicketTopics.issued, subject: view.eventId, data: view },
      ]);
      return view;
    });
    return {
      ticket,
      created: true,
      settlement: {
        success: true,
        transaction: settled.transaction,
        network: settled.network,
        payer: settled.payer ?? caller,
      },
    };
  }
}

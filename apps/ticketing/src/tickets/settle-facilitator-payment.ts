import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, OutboxWriter, sqlState } from '@townhall/platform/service';
import { paymentFingerprint, type Facilitator } from '@townhall/x402';
import { FeePayer } from '../payments/fee-payer.js';
import { PaymentExtensions } from '../payments/payment-extensions.js';
import { PaymentIds } from '../payments/payment-ids.js';
import { FEE_PAYER_REFUSALS } from '../payments/settle-answers.js';
import { codeProblem, takeSeatFor, useCode } from '../db/functions.js';
import { paymentRefused, type Purchase, type Settled } from './purchase.js';
import { seatProblem } from './sale-refusals.js';
import { FACILITATOR } from '../tokens.js';
import { FacilitatorSettlements } from '../payments/facilitator-settlements.js';
import { AlreadyHolding, insertTicket } from './seats.js';
import { TicketBook } from './ticket-book.js';

/**
 * A paid ticket through an x402 facilitator (http, or solana-local in process), on Solana: the only
 * network a facilitator settles on here (config.ts). The payment is first checked against the
 * request (checkExactSvmPayment: the transfer's authority is the signer, and mint, recipient,
 * amount and memo are this tier's), so a payment made by another key or for another event, tier
 * or price never reaches the facilitator. After /verify, one
 * transaction takes the seat, writes a pending ticket and records the payment as settling (one
 * live settlement per payment); no transaction is open while the facilitator works. Its answer to
 * /settle concludes the payment (FacilitatorSettlements): settled, the ticket is issued (201);
 * refused before anything was sent, the seat is released (returned as refused: the 402); no answer, or one that leaves it
 * open (a timeout, `settlement_pending`), the ticket stays pending with its seat (202) until the
 * facilitator or the chain says what happened. A pending payment is never answered with a 402.
 */
@Injectable()
export class SettleFacilitatorPayment {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
    private readonly settlements: FacilitatorSettlements,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    private readonly feePayer: FeePayer,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly ids: PaymentIds,
    private readonly extensions: PaymentExtensions,
  ) {}

  async settle({ event, caller, payload, requirements, code, paymentId }: Purchase): Promise<Settled> {
    const facilitator = this.facilitator;
    if (!facilitator) throw new Error('a facilitator payment needs X402_FACILITATOR=http or solana-local');
    // Loaded with the first payment: @solana/kit is not for ledger deployments to load.
    const { checkExactSvmPayment } = await import('@townhall/x402/svm');
    let paymentKey: string;
    try {
      paymentKey = (await checkExactSvmPayment(payload, requirements, { payer: caller })).messageHash;
    } catch (error) {
      return paymentRefused(error);
    }
    const verified = await facilitator.verify(payload, requirements);
    if (!verified.isValid) {
      if (FEE_PAYER_REFUSALS.has(verified.invalidReason ?? '')) this.feePayer.forget();
      return {
        refused: 'payment.invalid',
        detail: `The facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}`,
        reason: verified.invalidReason ?? 'invalid_payment',
      };
    }
    const tierId = requirements.extra.tierId;
    let ticketId: string;
    try {
      ticketId = await this.outbox.run(async (manager) => {
        // The seat a waitlist offer holds for the caller, or one from the sale.
        const seat = await takeSeatFor(manager, this.outbox, {
          eventId: event.event_id,
          tierId,
          agentId: caller,
          at: this.clock(),
        });
        if (seat.outcome === 'refused') throw seatProblem(seat, tierId);
        // A code's use is counted while the pending ticket holds its seat (given back if voided).
        const used =
          code === undefined
            ? undefined
            : await useCode(manager, { eventId: event.event_id, code, at: this.clock() });
        if (used?.outcome === 'refused') throw codeProblem(used.refusal);
        const pending = await insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: requirements.maxAmountRequired,
          asset: requirements.asset,
          status: 'pending',
          code: used?.code ?? null,
        });
        await this.settlements.open(manager, pending, { payer: caller, payload, requirements, paymentKey });
        if (paymentId !== undefined) {
          const identified = { id: paymentId, fingerprint: paymentFingerprint(payload) };
          const claimed = await this.ids.claim(manager, caller, identified, pending.id);
          if (claimed !== 'claimed') throw new PaidBefore(claimed.ticketId);
        }
        return pending.id;
      });
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, caller);
      // The same payment, under its id, took its seat first (a retry racing the first attempt).
      if (error instanceof PaidBefore) {
        const ticket = await this.book.byId(error.ticketId);
        return { ticket, created: false, ...(await this.extensions.paid(ticket)) };
      }
      const { code, constraint } = sqlState(error);
      // The same payment already holds a seat (another RSVP of the caller's, for another event).
      if (code === '23505' && constraint === 'settlements_one_live_per_payment') {
        return {
          refused: 'payment.invalid',
          detail: 'This payment is already being settled for another ticket',
          reason: 'payment_in_use',
        };
      }
      throw error;
    }
    const outcome = await this.settlements.settle(ticketId, payload, requirements);
    if (outcome.state === 'voided') {
      return {
        refused: 'payment.invalid',
        detail: `Settlement failed: ${outcome.message ?? outcome.reason}`,
        reason: outcome.reason,
      };
    }
    return {
      ticket: outcome.ticket,
      created: true,
      ...(outcome.state === 'settled'
        ? await this.extensions.paid(outcome.ticket, outcome.settlement)
        : { settlement: null }),
    };
  }
}

/** The payment's id names a live ticket this same payment took first: that one is the answer. */
class PaidBefore extends Error {
  constructor(readonly ticketId: string) {
    super('this payment took its seat first');
  }
}

import type { SettlementView, TicketReply } from '@townhall/contracts';
import { PaymentError, type PaymentPayload, type PaymentRequirements } from '@townhall/x402';
import type { EventRow } from '../projection/event-row.js';

/** A paid RSVP ready to settle: the tier's requirements chosen, the payment decoded. */
export interface Purchase {
  event: EventRow;
  caller: string;
  payload: PaymentPayload;
  /** What the chosen tier asks. */
  requirements: PaymentRequirements;
  /**
   * The version of `event` when it was remembered rather than read for this purchase: the
   * ledger's purchase then writes nothing and throws DecideOnRead if the event is at another.
   */
  eventVersion?: number;
  /** The host's code the price was discounted by, as the host wrote it (docs/product.md "Codes"). */
  code?: string;
  /** The x402 `payment-identifier` id the payment carries (payment-ids.ts), claimed with its seat. */
  paymentId?: string;
}

/**
 * A payment that cannot be taken, returned rather than thrown: the RSVP answers it with the 402
 * that lets the client pay again (PaymentExtensions.paymentRequired, from what is on sale), or
 * decides it again on a read when it had not read the sale.
 */
export interface PaymentRefused {
  refused: 'payment.invalid' | 'payment.insufficient_funds';
  detail: string;
  /** The x402 reason, in the 402's body. */
  reason: string;
}

/** What settling a purchase answers: the ticket (issued, held already, or pending), or a refused payment. */
export type Settled = TicketReply | PaymentRefused;

/** Whether a step of the payment refused it (rather than answering with what it found). */
export function isRefused<T extends object>(result: T | PaymentRefused): result is PaymentRefused {
  return 'refused' in result;
}

/** A payment the x402 library refused (PaymentError); anything else is thrown on. */
export function paymentRefused(error: unknown): PaymentRefused {
  if (error instanceof PaymentError)
    return { refused: 'payment.invalid', detail: error.message, reason: error.reason };
  throw error;
}

/** The X-PAYMENT-RESPONSE of a ledger settlement. */
export function ledgerSettlement(network: string, transaction: string, payer: string): SettlementView {
  return { success: true, transaction, network, payer };
}

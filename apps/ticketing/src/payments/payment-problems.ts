import { DomainError, type SettlementView } from '@townhall/contracts';
import {
  paymentRequiredBody,
  PaymentError,
  type PaymentPayload,
  type PaymentRequirements,
} from '@townhall/x402';
import type { EventRow } from '../projection/event-row.js';
import type { TicketReply } from '@townhall/contracts';

/**
 * A 402 (or 409) whose body also carries the x402 v1 fields, so x402 clients can pay again. With
 * no tier left to buy there is no way to pay: that is 409 `capacity.sold_out`, whatever was sent.
 */
export function paymentRequired(
  code: 'payment.required' | 'payment.invalid' | 'payment.insufficient_funds',
  detail: string,
  reason: string,
  accepts: PaymentRequirements[],
): DomainError {
  if (accepts.length === 0) return new DomainError('capacity.sold_out', 'No seat is left in this event');
  return new DomainError(code, detail, undefined, { x402: paymentRequiredBody(reason, accepts) });
}

/**
 * The answer to a payment that cannot be taken, built only then (it reads what is still on
 * sale): the 402 that lets the client pay again, or 409 `capacity.sold_out`.
 */
export type PaymentRefusal = (
  code: PaymentProblemCode,
  detail: string,
  reason: string,
) => Promise<DomainError>;

type PaymentProblemCode = Parameters<typeof paymentRequired>[0];

/** A payment the x402 library refused, as the 402 that lets the client pay again. */
export async function asPaymentProblem(error: unknown, refuse: PaymentRefusal): Promise<DomainError> {
  if (error instanceof PaymentError) return refuse('payment.invalid', error.message, error.reason);
  if (error instanceof DomainError) return error;
  throw error;
}

/** The X-PAYMENT-RESPONSE of a ledger settlement. */
export function ledgerSettlement(network: string, transaction: string, payer: string): SettlementView {
  return { success: true, transaction, network, payer };
}

/** A paid RSVP ready to settle: the tier's requirements chosen, the payment decoded. */
export interface Purchase {
  event: EventRow;
  caller: string;
  payload: PaymentPayload;
  /** What the chosen tier asks. */
  requirements: PaymentRequirements;
  /** The answer when the payment cannot be taken. */
  refuse: PaymentRefusal;
  /**
   * The version of `event` when it was remembered rather than read for this purchase: the
   * ledger's purchase then writes nothing and throws DecideOnRead if the event is at another.
   */
  eventVersion?: number;
  /** The host's code the price was discounted by, as the host wrote it (docs/product.md "Codes"). */
  code?: string;
}

/** How a purchase is settled: on the service's own ledger, or through an x402 facilitator. */
export interface PaymentSettlement {
  settle(purchase: Purchase): Promise<TicketReply>;
}

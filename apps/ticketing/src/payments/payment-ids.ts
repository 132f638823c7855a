import { Injectable } from '@nestjs/common';
import { DomainError, type TicketReply } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { decodePaymentHeader, paymentFingerprint, PaymentError, type PaymentPayload } from '@townhall/x402';
import { PaymentIdentifierError, paymentIdentifierOf } from '@townhall/x402/extensions';
import { DataSource, type EntityManager } from 'typeorm';
import { TicketBook } from '../tickets/ticket-book.js';
import { PaymentExtensions } from './payment-extensions.js';

/** A payment that carries a `payment-identifier` id. */
export interface IdentifiedPayment {
  id: string;
  fingerprint: string;
}

/** The id an earlier payment holds, by the same payer. */
export function idReused(): DomainError {
  return new DomainError(
    'payment.id_reused',
    'This payment identifier was already used for another payment: a retry must send the same payment',
  );
}

/**
 * x402 `payment-identifier` (docs/protocol/payments.md "payment-identifier"): the id a client puts
 * in its payment and reuses on every retry of it. Ids are the payer's own (ticketing.payment_ids,
 * keyed by payer and id), claimed in the transaction that takes the payment's seat: the same id with
 * the same payment answers with the ticket it bought (and its receipt), even in a new signed request
 * without an Idempotency-Key; with another payment it is 409 `payment.id_reused`, whichever
 * payment the retry carries. Of two payments with one id at once, the key lets one claim it.
 */
@Injectable()
export class PaymentIds {
  constructor(
    private readonly dataSource: DataSource,
    private readonly book: TicketBook,
    private readonly extensions: PaymentExtensions,
  ) {}

  /**
   * The id `header`'s payment carries, undefined without one (or for a header that does not
   * decode: the sale refuses it as it refuses any). An id the package's checks refuse is 400
   * `validation.failed` naming the field: it is a client's mistake, never a payment to take.
   */
  identified(header: string): (IdentifiedPayment & { payment: PaymentPayload }) | undefined {
    let payment: PaymentPayload;
    try {
      payment = decodePaymentHeader(header);
    } catch (error) {
      if (error instanceof PaymentError) return undefined;
      throw error;
    }
    let id: string | undefined;
    try {
      id = paymentIdentifierOf(payment);
    } catch (error) {
      if (!(error instanceof PaymentIdentifierError)) throw error;
      throw new DomainError('validation.failed', 'The payment-identifier extension is invalid', [
        { field: 'payment.extensions.payment-identifier.info', message: error.message },
      ]);
    }
    return id === undefined ? undefined : { id, fingerprint: paymentFingerprint(payment), payment };
  }

  /**
   * The answer an earlier payment with this id gives: the ticket it bought (200, with its receipt),
   * or 409 `payment.id_reused` for another payment; undefined when the id is new, or bought
   * nothing that stands (a payment refused or voided after it claimed the id: decided again).
   */
  async earlier(payer: string, identified: IdentifiedPayment): Promise<TicketReply | undefined> {
    const [row] = await queryRows<{ fingerprint: string; ticket_id: string }>(
      this.dataSource.manager,
      'SELECT fingerprint, ticket_id FROM ticketing.payment_ids WHERE payer = $1 AND payment_id = $2',
      [payer, identified.id],
    );
    if (!row) return undefined;
    if (row.fingerprint !== identified.fingerprint) throw idReused();
    const ticket = await this.book.findById(row.ticket_id);
    if (!ticket || ticket.status === 'cancelled') return undefined;
    return { ticket, created: false, ...(await this.extensions.paid(ticket)) };
  }

  /**
   * Claims the id for `ticketId` in the purchase's transaction (`manager`). 'claimed', or the
   * ticket of the same payment that claimed it first; 409 for another payment. An id whose ticket
   * was cancelled before it was issued (a voided payment) passes to the new ticket.
   */
  async claim(
    manager: EntityManager,
    payer: string,
    identified: IdentifiedPayment,
    ticketId: string,
  ): Promise<'claimed' | { ticketId: string }> {
    const claimed = await queryRows(
      manager,
      `INSERT INTO ticketing.payment_ids (payer, payment_id, fingerprint, ticket_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (payer, payment_id) DO UPDATE SET ticket_id = EXCLUDED.ticket_id
        WHERE payment_ids.fingerprint = EXCLUDED.fingerprint
          AND EXISTS (SELECT 1 FROM ticketing.tickets t
                       WHERE t.id = payment_ids.ticket_id AND t.status = 'cancelled' AND t.receipt IS NULL)
       RETURNING ticket_id`,
      [payer, identified.id, identified.fingerprint, ticketId],
    );
    if (claimed.length > 0) return 'claimed';
    const [held] = await queryRows<{ fingerprint: string; ticket_id: string }>(
      manager,
      'SELECT fingerprint, ticket_id FROM ticketing.payment_ids WHERE payer = $1 AND payment_id = $2',
      [payer, identified.id],
    );
    if (!held || held.fingerprint !== identified.fingerprint) throw idReused();
    return { ticketId: held.ticket_id };
  }
}

import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  LedgerTopics,
  TicketTopics,
  type LedgerEntryView,
  type TicketView,
} from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, SETTINGS } from '@townhall/platform/service';
import type { SignatureVerifier } from '@townhall/auth';
import { checkLedgerPayment, paymentFingerprint } from '@townhall/x402';
import { DataSource } from 'typeorm';
import { codeProblem, purchaseCall, type PurchaseArgs, type PurchaseOutcome } from '../db/functions.js';
import { SIGNATURES } from '../tokens.js';
import type { TicketingSettings } from '../settings.js';
import { PaymentExtensions } from '../payments/payment-extensions.js';
import { idReused } from '../payments/payment-ids.js';
import { ledgerSettlement, paymentRefused, type Purchase, type Settled } from './purchase.js';
import { DecideOnRead } from './sale-facts.js';
import { seatProblem } from './sale-refusals.js';
import { TicketBook } from './ticket-book.js';

/**
 * A paid ticket for an `x402-ledger-v1` payment (docs/protocol/payments.md): the payment checked
 * here, then one call to ticketing.purchase (db/functions/purchase.sql), one transaction:
 * the ticket held already, the (payer, nonce) claim, the ticket, both ledger entries, the debit,
 * the domain events, the seat and the host's credit. A refusal writes nothing; a payment that
 * cannot be taken is returned as refused (the RSVP answers it with its 402); the same payment
 * sent again answers with the ticket it bought.
 */
@Injectable()
export class SettleLedgerPayment {
  private readonly purchase: (args: PurchaseArgs) => Promise<PurchaseOutcome>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SIGNATURES) private readonly signatures: SignatureVerifier,
    private readonly extensions: PaymentExtensions,
  ) {
    this.purchase = purchaseCall(dataSource, outbox);
  }

  async settle({
    event,
    caller,
    payload,
    requirements,
    eventVersion,
    code,
    paymentId,
  }: Purchase): Promise<Settled> {
    let authorization;
    try {
      authorization = checkLedgerPayment(payload, requirements, {
        caller,
        now: this.clock(),
        verify: (agentId, message, signature) => this.signatures.verifyMessage(agentId, message, signature),
      });
    } catch (error) {
      return paymentRefused(error);
    }
    const tierId = requirements.extra.tierId;
    const paid = (issued: TicketView, transaction: string) =>
      this.extensions.paid(issued, ledgerSettlement(this.settings.network, transaction, caller));
    // Everything the transaction writes is known here: its ids, its time, its domain events, and
    // so the receipt of the ticket it issues.
    const now = this.clock();
    const at = now.toISOString();
    const debitId = randomUUID();
    const receipt = await this.extensions.receipt({
      resourceUrl: requirements.resource,
      payer: caller,
      network: requirements.network,
      transaction: debitId,
      amount: authorization.value,
      asset: authorization.asset,
      issuedAt: now,
    });
    const ticket: TicketView = {
      id: randomUUID(),
      eventId: event.event_id,
      tierId,
      holderId: caller,
      status: 'active',
      price: authorization.value,
      asset: authorization.asset,
      network: null,
      transaction: null,
      code: code ?? null,
      createdAt: at,
      cancelledAt: null,
      receipt,
    };
    const entry = (id: string, agentId: string, amount: string, counterpartyId: string): LedgerEntryView => ({
      id,
      type: 'EVENT_TICKET',
      agentId,
      amount,
      asset: authorization.asset,
      eventId: event.event_id,
      ticketId: ticket.id,
      counterpartyId,
      network: null,
      transaction: null,
      code: code ?? null,
      createdAt: at,
    });
    const debit = entry(debitId, caller, `-${authorization.value}`, event.host_id);
    const credit = entry(randomUUID(), event.host_id, authorization.value, caller);
    const events = this.outbox.prepare([
      { type: TicketTopics.issued, subject: ticket.eventId, data: ticket },
      { type: LedgerTopics.entryRecorded, subject: debit.agentId, data: debit },
      { type: LedgerTopics.entryRecorded, subject: credit.agentId, data: credit },
    ]);
    const bought = await this.purchase({
      payer: authorization.from,
      nonce: authorization.nonce,
      fingerprint: paymentFingerprint(payload),
      network: requirements.network,
      eventId: event.event_id,
      tierId,
      hostId: event.host_id,
      amount: authorization.value,
      asset: authorization.asset,
      ticketId: ticket.id,
      debitId: debit.id,
      creditId: credit.id,
      at,
      events,
      ...(eventVersion === undefined ? {} : { eventVersion }),
      ...(code === undefined ? {} : { code }),
      ...(paymentId === undefined ? {} : { paymentId }),
      receipt,
    });
    switch (bought.outcome) {
      case 'stale':
        throw new DecideOnRead();
      case 'purchased':
        return { ticket, created: true, ...(await paid(ticket, debit.id)) };
      case 'held':
        return { ticket: await this.book.byId(bought.ticketId), created: false, settlement: null };
      case 'paid': {
        const earlier = await this.book.byId(bought.ticketId);
        return { ticket: earlier, created: false, ...(await paid(earlier, bought.transactionId)) };
      }
      case 'lost_race':
        return this.book.alreadyHeld(event.event_id, caller);
      case 'refused':
        switch (bought.refusal) {
          case 'id_reused':
            throw idReused();
          case 'nonce_reused':
            throw new DomainError(
              'payment.nonce_reused',
              'This payment nonce was already used for another payment',
            );
          case 'insufficient_funds':
            return {
              refused: 'payment.insufficient_funds',
              detail: `The payer's ${authorization.asset} balance does not cover ${authorization.value}`,
              reason: 'insufficient_funds',
            };
          case 'code_not_found':
          case 'code_expired':
          case 'code_exhausted':
            throw codeProblem(bought.refusal);
          default:
            throw seatProblem({ refusal: bought.refusal, detail: bought.detail }, tierId);
        }
    }
  }
}

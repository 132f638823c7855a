import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  LedgerTopics,
  TicketTopics,
  type LedgerEntryView,
  type TicketReply,
  type TicketView,
} from '@townhall/contracts';
import { OutboxWriter } from '@townhall/platform/service';
import type { SignatureVerifier } from '@townhall/auth';
import { checkLedgerPayment, paymentFingerprint } from '@townhall/x402';
import { DataSource } from 'typeorm';
import {
  asPaymentProblem,
  ledgerSettlement,
  type PaymentSettlement,
  type Purchase,
} from '../payments/payment-problems.js';
import {
  codeProblem,
  purchaseCall,
  seatProblem,
  type PurchaseArgs,
  type PurchaseOutcome,
} from '../db/functions.js';
import { CLOCK, SETTINGS, SIGNATURES, type Clock, type TicketingSettings } from '../tokens.js';
import { DecideOnRead } from './sale-facts.js';
import { TicketBook } from './ticket-book.js';

/**
 * A paid ticket for an `x402-ledger-v1` payment (docs/protocol/payments.md): the payment checked
 * here, then one call to ticketing.purchase (db/functions/purchase.sql), one transaction:
 * the ticket held already, the (payer, nonce) claim, the ticket, both ledger entries, the debit,
 * the domain events, the seat and the host's credit. A refusal writes nothing; the same payment
 * sent again answers with the ticket it bought.
 */
@Injectable()
export class SettleLedgerPayment implements PaymentSettlement {
  private readonly purchase: (args: PurchaseArgs) => Promise<PurchaseOutcome>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly book: TicketBook,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SIGNATURES) private readonly signatures: SignatureVerifier,
  ) {
    this.purchase = purchaseCall(dataSource, outbox);
  }

  async settle({
    event,
    caller,
    payload,
    requirements,
    refuse,
    eventVersion,
    code,
  }: Purchase): Promise<TicketReply> {
    let authorization;
    try {
      authorization = checkLedgerPayment(payload, requirements, {
        caller,
        now: this.clock(),
        verify: (agentId, message, signature) => this.signatures.verifyMessage(agentId, message, signature),
      });
    } catch (error) {
      throw await asPaymentProblem(error, refuse);
    }
    const tierId = requirements.extra.tierId;
    const settlement = (transaction: string) => ledgerSettlement(this.settings.network, transaction, caller);
    // Everything the transaction writes is known here: its ids, its time, its domain events.
    const at = this.clock().toISOString();
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
    };
    const entry = (agentId: string, amount: string, counterpartyId: string): LedgerEntryView => ({
      id: randomUUID(),
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
    const debit = entry(caller, `-${authorization.value}`, event.host_id);
    const credit = entry(event.host_id, authorization.value, caller);
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
    });
    switch (bought.outcome) {
      case 'stale':
        throw new DecideOnRead();
      case 'purchased':
        return { ticket, created: true, settlement: settlement(debit.id) };
      case 'held':
        return { ticket: await this.book.byId(bought.ticketId), created: false, settlement: null };
      case 'paid':
        return {
          ticket: await this.book.byId(bought.ticketId),
          created: false,
          settlement: settlement(bought.transactionId),
        };
      case 'lost_race':
        return this.book.alreadyHeld(event.event_id, caller);
      case 'refused':
        switch (bought.refusal) {
          case 'nonce_reused':
            throw new DomainError(
              'payment.nonce_reused',
              'This payment nonce was already used for another payment',
            );
          case 'insufficient_funds':
            throw await refuse(
              'payment.insufficient_funds',
              `The payer's ${authorization.asset} balance does not cover ${authorization.value}`,
              'insufficient_funds',
            );
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

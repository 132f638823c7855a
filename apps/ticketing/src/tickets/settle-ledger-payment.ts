import { Inject, Injectable } from '@nestjs/common';
import { DomainError, TicketTopics, type RsvpReply } from '@townhall/contracts';
import { Changes, queryRows } from '@townhall/platform/service';
import type { SignatureVerifier } from '@townhall/auth';
import { checkLedgerPayment, paymentFingerprint } from '@townhall/x402';
import { LedgerBook } from '../ledger/ledger-book.js';
import {
  asPaymentProblem,
  ledgerSettlement,
  paymentRequired,
  type PaymentSettlement,
  type Purchase,
} from '../payments/payment-problems.js';
import { CLOCK, SETTINGS, SIGNATURES, type Clock, type TicketingSettings } from '../tokens.js';
import { AlreadyHolding, insertTicket, takeSeat } from './seats.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';

/** Thrown inside a purchase when this exact payment was already settled: answer with its ticket. */
class AlreadyPaid extends Error {
  constructor(
    readonly ticketId: string,
    readonly transaction: string,
  ) {
    super('already paid');
  }
}

/**
 * A paid ticket for an `x402-ledger-v1` payment (docs/protocol/payments.md), in one transaction:
 * claim (payer, nonce), issue the ticket, move the money with the seat taken between debit and
 * credit, record the settlement. Any failure rolls all of it back; the same payment sent again
 * answers with the ticket it bought.
 */
@Injectable()
export class SettleLedgerPayment implements PaymentSettlement {
  constructor(
    private readonly changes: Changes,
    private readonly ledger: LedgerBook,
    private readonly book: TicketBook,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SIGNATURES) private readonly signatures: SignatureVerifier,
  ) {}

  async settle({ event, caller, payload, requirements, accepts }: Purchase): Promise<RsvpReply> {
    let authorization;
    try {
      authorization = checkLedgerPayment(payload, requirements, {
        caller,
        now: this.clock(),
        verify: (agentId, message, signature) => this.signatures.verifyMessage(agentId, message, signature),
      });
    } catch (error) {
      throw asPaymentProblem(error, accepts);
    }
    const fingerprint = paymentFingerprint(payload);
    const tierId = requirements.extra.tierId;
    const settlement = (transaction: string) => ledgerSettlement(this.settings.network, transaction, caller);
    try {
      return await this.changes.run(async (manager) => {
        const claimed = await queryRows(
          manager,
          `INSERT INTO ticketing.payments (payer, nonce, fingerprint, event_id, tier_id, amount, asset, network)
           VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8) ON CONFLICT (payer, nonce) DO NOTHING RETURNING payer`,
          [
            authorization.from,
            authorization.nonce,
            fingerprint,
            event.event_id,
            tierId,
            authorization.value,
            authorization.asset,
            requirements.network,
          ],
        );
        if (claimed.length === 0) {
          const [earlier] = await queryRows<{
            fingerprint: string;
            ticket_id: string | null;
            transaction: string | null;
          }>(
            manager,
            'SELECT fingerprint, ticket_id, transaction FROM ticketing.payments WHERE payer = $1 AND nonce = $2',
            [authorization.from, authorization.nonce],
          );
          if (earlier?.fingerprint === fingerprint && earlier.ticket_id && earlier.transaction) {
            throw new AlreadyPaid(earlier.ticket_id, earlier.transaction);
          }
          throw new DomainError(
            'payment.nonce_reused',
            'This payment nonce was already used for another payment',
          );
        }
        const ticket = await insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: authorization.value,
          asset: authorization.asset,
          status: 'active',
        });
        const view = toTicket(ticket);
        await this.changes.announce(manager, [
          { type: TicketTopics.issued, subject: view.eventId, data: view },
        ]);
        // The rows every buyer of this event shares (the tier, the event total, the host's
        // balance) are taken last, so that each purchase holds them for its final statements only.
        let debit;
        try {
          [debit] = await this.ledger.transfer(manager, {
            type: 'EVENT_TICKET',
            from: caller,
            to: event.host_id,
            amount: authorization.value,
            asset: authorization.asset,
            eventId: event.event_id,
            ticketId: ticket.id,
            requireFunds: true,
            beforeCredit: () => takeSeat(manager, event.event_id, tierId),
          });
        } catch (error) {
          if (error instanceof DomainError && error.code === 'payment.insufficient_funds') {
            throw paymentRequired('payment.insufficient_funds', error.message, 'insufficient_funds', accepts);
          }
          throw error;
        }
        await queryRows(
          manager,
          'UPDATE ticketing.payments SET ticket_id = $3, transaction = $4 WHERE payer = $1 AND nonce = $2',
          [authorization.from, authorization.nonce, ticket.id, debit.id],
        );
        return { ticket: view, created: true, settlement: settlement(debit.id) };
      });
    } catch (error) {
      if (error instanceof AlreadyPaid) {
        return {
          ticket: await this.book.byId(error.ticketId),
          created: false,
          settlement: settlement(error.transaction),
        };
      }
      if (error instanceof AlreadyHolding) return this.book.alreadyHeld(event.event_id, caller);
      throw error;
    }
  }
}

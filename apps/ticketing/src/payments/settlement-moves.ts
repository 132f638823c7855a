import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, type SettlementView, type TicketView } from '@townhall/contracts';
import { LOGGER, type Logger, OutboxWriter, queryRows, SETTINGS } from '@townhall/platform/service';
import { FACILITATOR_FAILURES, type PaymentRequirements, type SettleResult } from '@townhall/x402';
import type { ChainSearchProgress } from '@townhall/x402/svm';
import type { EntityManager } from 'typeorm';
import { LedgerBook } from '../ledger/ledger-book.js';
import { RefundsOwed } from '../refunds/refunds-owed.js';
import type { TicketingSettings } from '../settings.js';
import { lockSeats } from '../tickets/seats.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from '../tickets/ticket-row.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { PaymentExtensions } from './payment-extensions.js';

/** Where a settlement stands after an answer of the facilitator. */
export type SettlementOutcome =
  | { state: 'settled'; ticket: TicketView; settlement: SettlementView }
  | { state: 'voided'; ticket: TicketView; reason: string; message: string | undefined }
  | { state: 'settling'; ticket: TicketView; reason: string };

/**
 * The moves of a `settling` payment (facilitator-settlements.ts decides which), each one
 * conditional UPDATE of the settlement in the transaction that changes its ticket, so a payment
 * concludes once however many callers get an answer: settled (the ticket issued with its receipt
 * and its ledger entries), voided (the ticket cancelled, its code's use and its seat given back),
 * or still settling (with what the answer or the chain search said).
 */
@Injectable()
export class SettlementMoves {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly waitlist: WaitlistSeats,
    private readonly ledger: LedgerBook,
    private readonly refunds: RefundsOwed,
    private readonly extensions: PaymentExtensions,
  ) {}

  /**
   * Moves a `settling` payment by an answer: a success settles it; a failure voids it if
   * `decided`, else leaves it settling (with the transaction the answer named, if any, for the
   * chain to be asked about). A payment already concluded stays as it is.
   */
  async conclude(ticketId: string, result: SettleResult, decided: boolean): Promise<SettlementOutcome> {
    if (result.success) {
      return this.outbox.run(async (manager) => {
        const [settled] = await queryRows<{ payer: string; requirements: PaymentRequirements }>(
          manager,
          `UPDATE ticketing.settlements SET status = 'settled', transaction = $2, network = $3, concluded_at = now()
            WHERE ticket_id = $1 AND status = 'settling' RETURNING payer, requirements`,
          [ticketId, result.transaction, result.network],
        );
        // Concluded before (another replica's attempt): as it was recorded then.
        if (!settled) return this.current(manager, ticketId, undefined);
        const settlement = {
          success: true,
          transaction: result.transaction,
          network: result.network,
          payer: result.payer ?? settled.payer,
        } satisfies SettlementView;
        const { requirements } = settled;
        // The ticket is issued with its receipt: what it cost, who paid, on which transaction.
        const receipt = await this.extensions.receipt({
          resourceUrl: requirements.resource,
          payer: settled.payer,
          network: result.network,
          transaction: result.transaction,
          amount: requirements.maxAmountRequired,
          asset: requirements.asset,
          issuedAt: new Date(),
        });
        const [row] = await queryRows<TicketRow>(
          manager,
          `UPDATE ticketing.tickets SET status = 'active', network = $2, transaction = $3, receipt = $4::jsonb
            WHERE id = $1 AND status = 'pending' RETURNING ${TICKET_COLUMNS}`,
          [ticketId, result.network, result.transaction, JSON.stringify(receipt)],
        );
        // The purchase in the ledger's history, as the chain moved it: no ledger balance moves.
        await this.ledger.transfer(manager, {
          type: 'EVENT_TICKET',
          from: settled.payer,
          to: requirements.payTo,
          amount: requirements.maxAmountRequired,
          asset: requirements.asset,
          eventId: requirements.extra.eventId,
          ticketId,
          requireFunds: false,
          chain: { network: result.network, transaction: result.transaction },
          code: row?.code ?? null,
        });
        if (!row) {
          // Cancelled with its event while the payment was settling: the payment is recorded as
          // settled, and the refund is owed on the payment's own network.
          const [cancelled] = await queryRows<TicketRow>(
            manager,
            `UPDATE ticketing.tickets SET network = $2, transaction = $3 WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
            [ticketId, result.network, result.transaction],
          );
          if (cancelled?.network) await this.refunds.owe(manager, cancelled, requirements.payTo);
          else
            this.logger.error(
              { ticketId },
              'a payment settled for a ticket cancelled meanwhile: a refund is owed',
            );
          return this.current(manager, ticketId, settlement);
        }
        const ticket = toTicket(row);
        await this.outbox.announce(manager, [
          { type: TicketTopics.issued, subject: ticket.eventId, data: ticket },
        ]);
        return { state: 'settled', ticket, settlement };
      });
    }
    const reason = result.errorReason ?? FACILITATOR_FAILURES.settleRefused;
    if (!decided) {
      return this.outbox.run(async (manager) => {
        await queryRows(
          manager,
          `UPDATE ticketing.settlements
              SET last_error = $2, pending_transaction = COALESCE(NULLIF($3, ''), pending_transaction)
            WHERE ticket_id = $1 AND status = 'settling'`,
          [ticketId, `${reason}: ${result.errorMessage ?? ''}`.slice(0, 1_000), result.transaction],
        );
        return this.current(manager, ticketId, undefined, reason);
      });
    }
    return this.outbox.run(async (manager) => {
      const [voided] = await queryRows<{ event_id: string; tier_id: string }>(
        manager,
        `UPDATE ticketing.settlements SET status = 'voided', last_error = $2, concluded_at = now()
          WHERE ticket_id = $1 AND status = 'settling' RETURNING event_id, tier_id`,
        [ticketId, `${reason}: ${result.errorMessage ?? ''}`.slice(0, 1_000)],
      );
      if (voided) {
        await lockSeats(manager, voided.event_id);
        await queryRows(
          manager,
          `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1 AND status = 'pending'`,
          [ticketId],
        );
        // Never issued: the code it counted a use of has that use back.
        await queryRows(
          manager,
          `UPDATE ticketing.codes c SET uses = c.uses - 1 FROM ticketing.tickets t
            WHERE t.id = $1 AND c.event_id = t.event_id AND c.code_key = lower(t.code)`,
          [ticketId],
        );
        // The seat goes to the first agent of the waitlist, else back on sale.
        await this.waitlist.seatFreed(manager, voided.event_id, voided.tier_id);
      }
      const outcome = await this.current(manager, ticketId, undefined, reason);
      return outcome.state === 'voided' ? { ...outcome, message: result.errorMessage } : outcome;
    });
  }

  /** Where the payment of `ticketId` stands now, read in `manager`'s transaction. */
  async current(
    manager: EntityManager,
    ticketId: string,
    settlement: SettlementView | undefined,
    reason = 'settling',
  ): Promise<SettlementOutcome> {
    const [row] = await queryRows<TicketRow>(
      manager,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE id = $1`,
      [ticketId],
    );
    const [payment] = await queryRows<{
      status: string;
      transaction: string | null;
      network: string | null;
      payer: string;
    }>(
      manager,
      'SELECT status, transaction, network, payer FROM ticketing.settlements WHERE ticket_id = $1',
      [ticketId],
    );
    if (!row || !payment) throw new Error(`no settlement for ticket ${ticketId}`);
    const ticket = toTicket(row);
    if (payment.status === 'settled') {
      return {
        state: 'settled',
        ticket,
        settlement: settlement ?? {
          success: true,
          transaction: payment.transaction ?? '',
          network: payment.network ?? this.settings.network,
          payer: payment.payer,
        },
      };
    }
    if (payment.status === 'voided') return { state: 'voided', ticket, reason, message: undefined };
    return { state: 'settling', ticket, reason };
  }

  /**
   * The chain search stopped at its bound before it was complete: the payment stays settling with
   * its seat, and the next look, due after `delayMs` rather than the backoff (each look gets
   * further), goes on from `progress`.
   */
  async searchOn(
    ticketId: string,
    progress: ChainSearchProgress,
    delayMs: number,
  ): Promise<SettlementOutcome> {
    return this.outbox.run(async (manager) => {
      await queryRows(
        manager,
        `UPDATE ticketing.settlements
            SET chain_search = $2::jsonb, last_error = 'chain_search_incomplete',
                next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
          WHERE ticket_id = $1 AND status = 'settling'`,
        [ticketId, JSON.stringify(progress), delayMs],
      );
      return this.current(manager, ticketId, undefined, 'chain_search_incomplete');
    });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, type SettlementView, type TicketView } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import {
  FACILITATOR_FAILURES,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
} from '@townhall/x402';
import type { ChainSearchProgress, ChainVerdict } from '@townhall/x402/svm';
import { DataSource, type EntityManager } from 'typeorm';
import { LedgerBook } from '../ledger/ledger-book.js';
import { RefundsOwed } from '../refunds/refunds-owed.js';
import { leavesOpen } from '../payments/settle-answers.js';
import type { PaymentRails } from '../payments/payment-rails.js';
import { FACILITATOR, LOGGER, RAILS, SETTINGS, type Logger, type TicketingSettings } from '../tokens.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { lockSeats } from './seats.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/** The longest wait between two attempts at one payment. */
const MAX_RETRY_DELAY_MS = 60_000;
/** How many settling payments one reconciliation pass takes on. */
const RECONCILE_BATCH = 20;

/** A settling payment, as reconciliation leases it. */
interface SettlingPayment {
  ticket_id: string;
  attempts: number;
  payment: PaymentPayload;
  requirements: PaymentRequirements;
  pending_transaction: string | null;
  /** When the settlement was recorded, before /settle: its transaction cannot have landed earlier. */
  created_at: Date;
  chain_search: unknown;
}

/** Where a settlement stands after an answer of the facilitator. */
export type SettlementOutcome =
  | { state: 'settled'; ticket: TicketView; settlement: SettlementView }
  | { state: 'voided'; ticket: TicketView; reason: string; message: string | undefined }
  | { state: 'settling'; ticket: TicketView; reason: string };

/**
 * The state machine of a payment through a facilitator, on Solana (docs/protocol/payments.md
 * "Settlement states"), one row of ticketing.settlements per pending ticket:
 *
 *   settling --facilitator: success--------------------------> settled (ticket active, issued)
 *   settling --facilitator: refused before sending anything--> voided (ticket cancelled, seat released)
 *   settling --any other answer, or none---------------------> settling (the chain decides: reconcileOnChain)
 *
 * Which refusals come before sending is settle-answers.ts's list; only the first /settle of a
 * payment can be one of them.
 *
 * Every move is one conditional UPDATE of a `settling` row in the transaction that changes the
 * ticket, so a payment concludes once however many callers (the request, the reconciliation job
 * on any replica) get an answer. A settled payment is never lost: the seat stays held, and the
 * payment is kept to ask again, until the facilitator says what happened. The facilitator's
 * /settle must answer a payment it has already settled with its success again.
 */
@Injectable()
export class FacilitatorSettlements {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly waitlist: WaitlistSeats,
    private readonly ledger: LedgerBook,
    private readonly refunds: RefundsOwed,
    @Inject(RAILS) private readonly rails: PaymentRails,
  ) {}

  /**
   * Records a payment about to be settled for `ticket` (pending, its seat taken in the same
   * transaction). The reconciliation job leaves it alone while the request's own /settle may
   * still be waiting.
   */
  async open(
    manager: EntityManager,
    ticket: TicketRow,
    payment: {
      payer: string;
      payload: PaymentPayload;
      requirements: PaymentRequirements;
      paymentKey: string;
    },
  ): Promise<void> {
    await queryRows(
      manager,
      `INSERT INTO ticketing.settlements
         (ticket_id, event_id, tier_id, payer, payment, requirements, payment_key, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7,
               now() + make_interval(secs => $8::double precision / 1000))`,
      [
        ticket.id,
        ticket.event_id,
        ticket.tier_id,
        payment.payer,
        JSON.stringify(payment.payload),
        JSON.stringify(payment.requirements),
        payment.paymentKey,
        this.firstRetryDelayMs,
      ],
    );
  }

  /**
   * Asks the facilitator to settle and concludes with its answer: a success settles, a refusal
   * before anything was sent voids, anything that may have reached the chain stays settling.
   */
  async settle(
    ticketId: string,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettlementOutcome> {
    const result = await this.settlementOf(payload, requirements);
    return this.conclude(ticketId, result, !leavesOpen(result));
  }

  /**
   * The reconciliation pass: every payment still `settling` whose next attempt is due is leased
   * (its next attempt moved out, so no other replica asks at the same time) and settled again.
   * Returns how many it concluded.
   */
  async reconcile(): Promise<number> {
    const due = await queryRows<SettlingPayment>(
      this.dataSource.manager,
      `UPDATE ticketing.settlements s
            SET attempts = s.attempts + 1,
                next_attempt_at = now() + make_interval(secs => LEAST($2::double precision, $3::double precision * 2 ^ s.attempts) / 1000)
          WHERE s.ticket_id IN (
            SELECT ticket_id FROM ticketing.settlements
             WHERE status = 'settling' AND next_attempt_at <= now()
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING s.ticket_id, s.attempts, s.payment, s.requirements, s.pending_transaction,
                    s.created_at, s.chain_search`,
      [RECONCILE_BATCH, MAX_RETRY_DELAY_MS, this.firstRetryDelayMs],
    );
    let concluded = 0;
    for (const row of due) {
      const outcome = await this.reconcileOnChain(row);
      if (outcome.state === 'settling') {
        this.logger.warn(
          { ticketId: row.ticket_id, attempts: row.attempts, reason: outcome.reason },
          'a payment is still settling: the facilitator has not said what happened',
        );
      } else {
        concluded += 1;
        this.logger.info(
          { ticketId: row.ticket_id, attempts: row.attempts, state: outcome.state },
          `a settling payment concluded: ${outcome.state}`,
        );
      }
    }
    return concluded;
  }

  /**
   * A Solana payment the facilitator left open: the chain decides. Landed, it is settled with its
   * transaction; landed and failed, or never landed before its blockhash expired (a complete search
   * of its token accounts back to this settlement's creation found nothing), it is voided and its
   * seat released (nothing moved, and nothing can). A search that stopped at its bound leaves it
   * settling, to go on at the next look. While it still could land, the facilitator is asked again
   * and only its success is taken: a refusal now (its settle cache has forgotten the payment; the
   * payer's funds are gone because it landed) could be wrong, the chain is not.
   */
  private async reconcileOnChain(row: SettlingPayment): Promise<SettlementOutcome> {
    const network = row.requirements.network;
    const chain = this.rails.chain;
    // Every facilitator here settles on Solana (config.ts), and its rails read that chain.
    if (!chain) throw new Error('settling payments need the Solana chain of X402_FACILITATOR');
    let verdict: ChainVerdict;
    try {
      verdict = await chain.verdict(row.payment, {
        since: row.created_at,
        knownTransaction: row.pending_transaction ?? undefined,
        progress: chain.progressOf(row.chain_search),
      });
    } catch (error) {
      this.logger.warn(
        { err: error, ticketId: row.ticket_id },
        'the Solana RPC did not answer; asking again later',
      );
      verdict = { state: 'unknown' };
    }
    switch (verdict.state) {
      case 'landed':
        return this.conclude(
          row.ticket_id,
          { success: true, transaction: verdict.transaction, network },
          true,
        );
      case 'failed':
        return this.conclude(
          row.ticket_id,
          {
            success: false,
            errorReason: 'transaction_failed_on_chain',
            errorMessage: verdict.error,
            transaction: verdict.transaction,
            network,
          },
          true,
        );
      case 'expired':
        return this.conclude(
          row.ticket_id,
          {
            success: false,
            errorReason: 'blockhash_expired',
            errorMessage: 'the payment never landed, and its blockhash has expired',
            transaction: '',
            network,
          },
          true,
        );
      case 'incomplete':
        return this.searchOn(row.ticket_id, verdict.progress);
      case 'unknown': {
        const result = await this.settlementOf(row.payment, row.requirements);
        return this.conclude(row.ticket_id, result, result.success);
      }
    }
  }

  /**
   * The chain search stopped at its bound before it was complete: the payment stays settling with
   * its seat, and the next look, due after the first retry delay rather than the backoff (each look
   * gets further), goes on from `progress`.
   */
  private async searchOn(ticketId: string, progress: ChainSearchProgress): Promise<SettlementOutcome> {
    return this.outbox.run(async (manager) => {
      await queryRows(
        manager,
        `UPDATE ticketing.settlements
            SET chain_search = $2::jsonb, last_error = 'chain_search_incomplete',
                next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
          WHERE ticket_id = $1 AND status = 'settling'`,
        [ticketId, JSON.stringify(progress), this.firstRetryDelayMs],
      );
      return this.current(manager, ticketId, undefined, 'chain_search_incomplete');
    });
  }

  private async settlementOf(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettleResult> {
    if (!this.facilitator) throw new Error('X402_FACILITATOR=http needs X402_FACILITATOR_URL');
    return this.facilitator.settle(payload, requirements);
  }

  /**
   * Moves a `settling` payment by an answer: a success settles it; a failure voids it if
   * `decided`, else leaves it settling (with the transaction the answer named, if any, for the
   * chain to be asked about). A payment already concluded stays as it is.
   */
  private async conclude(
    ticketId: string,
    result: SettleResult,
    decided: boolean,
  ): Promise<SettlementOutcome> {
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
        const [row] = await queryRows<TicketRow>(
          manager,
          `UPDATE ticketing.tickets SET status = 'active', network = $2, transaction = $3
            WHERE id = $1 AND status = 'pending' RETURNING ${TICKET_COLUMNS}`,
          [ticketId, result.network, result.transaction],
        );
        // The purchase in the ledger's history, as the chain moved it: no ledger balance moves.
        const { requirements } = settled;
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
  private async current(
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
   * How long after an attempt a payment is asked again, at first: never while that attempt's own
   * /settle may still be waiting (the facilitator timeout, and a second more). Each later
   * attempt waits twice as long, up to a minute.
   */
  private get firstRetryDelayMs(): number {
    return this.settings.facilitatorTimeoutMs + 1_000;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, type Logger, queryRows, SETTINGS } from '@townhall/platform/service';
import {
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
} from '@townhall/x402';
import type { ChainVerdict } from '@townhall/x402/svm';
import { DataSource, type EntityManager } from 'typeorm';
import type { TicketingSettings } from '../settings.js';
import type { TicketRow } from '../tickets/ticket-row.js';
import { FACILITATOR, RAILS } from '../tokens.js';
import type { PaymentRails } from './payment-rails.js';
import { leavesOpen } from './settle-answers.js';
import { SettlementMoves, type SettlementOutcome } from './settlement-moves.js';

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
 * Every move (settlement-moves.ts) is one conditional UPDATE of a `settling` row in the transaction that changes the
 * ticket, so a payment concludes once however many callers (the request, the reconciliation job
 * on any replica) get an answer. A settled payment is never lost: the seat stays held, and the
 * payment is kept to ask again, until the facilitator says what happened. The facilitator's
 * /settle must answer a payment it has already settled with its success again.
 */
@Injectable()
export class FacilitatorSettlements {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RAILS) private readonly rails: PaymentRails,
    private readonly moves: SettlementMoves,
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
    return this.moves.conclude(ticketId, result, !leavesOpen(result));
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
        return this.moves.conclude(
          row.ticket_id,
          { success: true, transaction: verdict.transaction, network },
          true,
        );
      case 'failed':
        return this.moves.conclude(
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
        return this.moves.conclude(
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
        return this.moves.searchOn(row.ticket_id, verdict.progress, this.firstRetryDelayMs);
      case 'unknown': {
        const result = await this.settlementOf(row.payment, row.requirements);
        return this.moves.conclude(row.ticket_id, result, result.success);
      }
    }
  }

  private async settlementOf(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettleResult> {
    if (!this.facilitator) throw new Error('X402_FACILITATOR=http needs X402_FACILITATOR_URL');
    return this.facilitator.settle(payload, requirements);
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

import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isUuid, RefundTopics, type RefundPaymentReply } from '@townhall/contracts';
import { LOGGER, type Logger, OutboxWriter, queryRows, SETTINGS, sqlState } from '@townhall/platform/service';
import {
  decodePaymentHeader,
  PaymentError,
  type Facilitator,
  type PaymentPayload,
  type SettleResult,
} from '@townhall/x402';
import type { ChainSearchProgress, ChainVerdict } from '@townhall/x402/svm';
import { DataSource, type EntityManager } from 'typeorm';
import { LedgerBook } from '../ledger/ledger-book.js';
import { FeePayer } from '../payments/fee-payer.js';
import type { PaymentRails } from '../payments/payment-rails.js';
import { FEE_PAYER_REFUSALS, leavesOpen } from '../payments/settle-answers.js';
import { FACILITATOR, RAILS } from '../tokens.js';
import type { TicketingSettings } from '../settings.js';
import { REFUND_COLUMNS, REFUND_FROM, refundRequirements, toRefund, type RefundRow } from './refund-row.js';

/** How many paying refunds one reconciliation pass takes on. */
const RECONCILE_BATCH = 20;
/** The longest wait between two looks at one paying refund. */
const MAX_RETRY_DELAY_MS = 60_000;

/**
 * The host pays a refund with its own key (docs/protocol/payments.md "Refunds on chain"): an
 * x402 `exact` transfer to the holder, of the ticket's price, with the refund's memo. Checked like
 * a ticket payment (the transfer's authority is the host who signed the request), verified, then
 * claimed (`owed` -> `paying`, one payment per refund), settled through the same facilitator, and
 * `paid` with its transaction: the ledger records it (EVENT_TICKET_REFUND, with the chain's
 * transaction) and `townhall.refund.paid` announces it. Exactly once: a paid refund refuses a
 * second payment before anything is settled, and one being paid refuses another (the same
 * payment again answers as it stands). A payment the facilitator leaves open stays `paying` until
 * the chain says what happened (landed: paid; failed, or expired unlanded after a complete search
 * of the host's and holder's token accounts back to the claim: owed again). A refund that may
 * have landed is never owed again: the host would sign a second transfer.
 */
@Injectable()
export class PayRefund {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly ledger: LedgerBook,
    private readonly feePayer: FeePayer,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    @Inject(RAILS) private readonly rails: PaymentRails,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async pay(caller: string, eventId: string, refundId: string, header: string): Promise<RefundPaymentReply> {
    const refund = await this.find(this.dataSource.manager, eventId, refundId);
    if (refund.host_id !== caller)
      throw new DomainError('role.forbidden', 'Only the host pays the refunds of its event');
    if (refund.status === 'paid') throw alreadyPaid(refund);
    const facilitator = this.facilitator;
    if (!facilitator) throw new Error('a refund on chain needs a facilitator');
    const requirements = refundRequirements(this.settings, refund, await this.feePayer.current());
    let payload: PaymentPayload;
    let paymentKey: string;
    const { checkExactSvmPayment } = await import('@townhall/x402/svm');
    try {
      payload = decodePaymentHeader(header);
      paymentKey = (await checkExactSvmPayment(payload, requirements, { payer: caller })).messageHash;
    } catch (error) {
      if (error instanceof PaymentError)
        throw new DomainError('payment.invalid', `${error.reason}: ${error.message}`);
      throw error;
    }
    if (refund.status === 'paying') return this.inFlight(refund, paymentKey);
    const verified = await facilitator.verify(payload, requirements);
    if (!verified.isValid) {
      if (FEE_PAYER_REFUSALS.has(verified.invalidReason ?? '')) this.feePayer.forget();
      throw new DomainError(
        'payment.invalid',
        `The facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}`,
      );
    }
    let claimed: { id: string }[];
    try {
      claimed = await this.outbox.run((manager) =>
        queryRows<{ id: string }>(
          manager,
          `UPDATE ticketing.refunds
              SET status = 'paying', payment = $2::jsonb, payment_key = $3, attempts = 1, last_error = NULL,
                  claimed_at = now(), chain_search = NULL,
                  next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
            WHERE id = $1 AND status = 'owed' RETURNING id`,
          [refund.id, JSON.stringify(payload), paymentKey, this.firstRetryDelayMs],
        ),
      );
    } catch (error) {
      const { code, constraint } = sqlState(error);
      if (code === '23505' && constraint === 'refunds_payment_key_key')
        throw new DomainError('payment.invalid', 'payment_in_use: this payment already pays another refund');
      throw error;
    }
    if (claimed.length === 0) {
      // Another request claimed it first: paid, or being paid.
      const now = await this.find(this.dataSource.manager, eventId, refundId);
      if (now.status === 'paid') throw alreadyPaid(now);
      return this.inFlight(now, paymentKey);
    }
    const result = await facilitator.settle(payload, requirements);
    const outcome = await this.conclude(refund.id, result, !leavesOpen(result));
    if (outcome.refund.status === 'owed') {
      throw new DomainError('payment.invalid', `Settlement failed: ${result.errorReason ?? 'refused'}`);
    }
    return outcome;
  }

  /**
   * The reconciliation pass: every refund still `paying` whose next look is due is leased, and the
   * chain (or, while its payment could still land, the facilitator) asked what happened.
   */
  async reconcile(): Promise<number> {
    const due = await queryRows<PayingRefund>(
      this.dataSource.manager,
      `UPDATE ticketing.refunds r
          SET attempts = r.attempts + 1,
              next_attempt_at = now() + make_interval(secs => LEAST($2::double precision, $3::double precision * 2 ^ r.attempts) / 1000)
        WHERE r.id IN (SELECT id FROM ticketing.refunds WHERE status = 'paying' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING r.id, r.payment, r.pending_transaction, r.claimed_at, r.chain_search`,
      [RECONCILE_BATCH, MAX_RETRY_DELAY_MS, this.firstRetryDelayMs],
    );
    let concluded = 0;
    for (const row of due) {
      const outcome = await this.reconcileOne(row);
      if (outcome.refund.status !== 'paying') concluded += 1;
    }
    return concluded;
  }

  private async reconcileOne(row: PayingRefund): Promise<RefundPaymentReply> {
    const [refund] = await queryRows<RefundRow>(
      this.dataSource,
      `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.id = $1`,
      [row.id],
    );
    const network = refund!.network;
    const chain = this.rails.chain;
    // Refunds are owed of tickets paid on chain, through a facilitator on Solana (config.ts), and
    // its rails read that chain.
    if (!chain) throw new Error('paying refunds need the Solana chain of X402_FACILITATOR');
    let verdict: ChainVerdict;
    try {
      verdict = await chain.verdict(row.payment, {
        since: row.claimed_at,
        knownTransaction: row.pending_transaction ?? undefined,
        progress: chain.progressOf(row.chain_search),
      });
    } catch (error) {
      this.logger.warn({ err: error, refundId: row.id }, 'the Solana RPC did not answer; asking again later');
      verdict = { state: 'unknown' };
    }
    switch (verdict.state) {
      case 'landed':
        return this.conclude(row.id, { success: true, transaction: verdict.transaction, network }, true);
      case 'failed':
      case 'expired':
        return this.conclude(
          row.id,
          { success: false, errorReason: verdict.state, transaction: '', network },
          true,
        );
      case 'incomplete':
        return this.searchOn(row.id, verdict.progress);
      case 'unknown': {
        const requirements = refundRequirements(this.settings, refund!, await this.feePayer.current());
        const result = await this.facilitator!.settle(row.payment, requirements);
        return this.conclude(row.id, result, result.success);
      }
    }
  }

  /**
   * Moves a `paying` refund by an answer: a success pays it; a failure makes it `owed` again if
   * `decided`, else leaves it paying (with the transaction the answer named, for the chain to be
   * asked about). A refund already concluded stays as it is.
   */
  private async conclude(
    refundId: string,
    result: SettleResult,
    decided: boolean,
  ): Promise<RefundPaymentReply> {
    return this.outbox.run(async (manager) => {
      if (result.success) {
        const [paid] = await queryRows<{ id: string }>(
          manager,
          `UPDATE ticketing.refunds SET status = 'paid', transaction = $2, paid_at = now(), last_error = NULL
            WHERE id = $1 AND status = 'paying' RETURNING id`,
          [refundId, result.transaction],
        );
        const refund = await this.byId(manager, refundId);
        if (!paid) return { refund: toRefund(refund), settlement: null };
        await this.ledger.transfer(manager, {
          type: 'EVENT_TICKET_REFUND',
          from: refund.host_id,
          to: refund.holder_id,
          amount: refund.amount,
          asset: refund.asset,
          eventId: refund.event_id,
          ticketId: refund.ticket_id,
          requireFunds: false,
          chain: { network: result.network, transaction: result.transaction },
        });
        const view = toRefund(refund);
        await this.outbox.announce(manager, [
          { type: RefundTopics.paid, subject: refund.event_id, data: view },
        ]);
        return {
          refund: view,
          settlement: {
            success: true,
            transaction: result.transaction,
            network: result.network,
            payer: refund.host_id,
          },
        };
      }
      const error = `${result.errorReason ?? 'refused'}: ${result.errorMessage ?? ''}`.slice(0, 1_000);
      if (decided) {
        await queryRows(
          manager,
          `UPDATE ticketing.refunds
              SET status = 'owed', payment = NULL, payment_key = NULL, pending_transaction = NULL,
                  claimed_at = NULL, chain_search = NULL, next_attempt_at = NULL, last_error = $2
            WHERE id = $1 AND status = 'paying'`,
          [refundId, error],
        );
      } else {
        await queryRows(
          manager,
          `UPDATE ticketing.refunds
              SET last_error = $2, pending_transaction = COALESCE(NULLIF($3, ''), pending_transaction)
            WHERE id = $1 AND status = 'paying'`,
          [refundId, error, result.transaction],
        );
      }
      return { refund: toRefund(await this.byId(manager, refundId)), settlement: null };
    });
  }

  /**
   * The chain search stopped at its bound before it was complete: the refund stays `paying`, and
   * the next look, due after the first retry delay rather than the backoff (each look gets further),
   * goes on from `progress`.
   */
  private async searchOn(refundId: string, progress: ChainSearchProgress): Promise<RefundPaymentReply> {
    return this.outbox.run(async (manager) => {
      await queryRows(
        manager,
        `UPDATE ticketing.refunds
            SET chain_search = $2::jsonb, last_error = 'chain_search_incomplete',
                next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
          WHERE id = $1 AND status = 'paying'`,
        [refundId, JSON.stringify(progress), this.firstRetryDelayMs],
      );
      return { refund: toRefund(await this.byId(manager, refundId)), settlement: null };
    });
  }

  /** A refund being paid: the same payment again answers as it stands; another is refused. */
  private inFlight(refund: RefundRow, paymentKey: string): RefundPaymentReply {
    if (refund.payment_key !== paymentKey) {
      throw new DomainError(
        'refund.in_flight',
        'Another payment of this refund is being settled; wait for it',
      );
    }
    return { refund: toRefund(refund), settlement: null };
  }

  private async find(manager: EntityManager, eventId: string, refundId: string): Promise<RefundRow> {
    const [row] =
      isUuid(eventId) && isUuid(refundId)
        ? await queryRows<RefundRow>(
            manager,
            `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.id = $1 AND r.event_id = $2`,
            [refundId, eventId],
          )
        : [];
    if (!row) throw new DomainError('refund.not_found', `No refund ${refundId} for event ${eventId}`);
    return row;
  }

  private async byId(manager: EntityManager, refundId: string): Promise<RefundRow> {
    const [row] = await queryRows<RefundRow>(
      manager,
      `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.id = $1`,
      [refundId],
    );
    if (!row) throw new Error(`expected refund ${refundId}`);
    return row;
  }

  private get firstRetryDelayMs(): number {
    return this.settings.facilitatorTimeoutMs + 1_000;
  }
}

/** A refund whose payment is left open, as reconciliation leases it. */
interface PayingRefund {
  id: string;
  payment: PaymentPayload;
  pending_transaction: string | null;
  /** When the payment was claimed: its transfer cannot have landed before. */
  claimed_at: Date;
  chain_search: unknown;
}

function alreadyPaid(refund: RefundRow): DomainError {
  return new DomainError(
    'refund.already_paid',
    `Refund ${refund.id} was paid by ${refund.transaction ?? 'a transaction'}`,
  );
}

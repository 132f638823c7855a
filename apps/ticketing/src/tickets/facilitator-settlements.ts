import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TicketTopics, type SettlementView, type TicketView } from '@townhall/contracts';
import { Changes, PeriodicJob, queryRows } from '@townhall/platform/service';
import {
  FACILITATOR_FAILURES,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
} from '@townhall/x402';
import { DataSource, type EntityManager } from 'typeorm';
import { FACILITATOR, LOGGER, SETTINGS, type Logger, type TicketingSettings } from '../tokens.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { lockSeats } from './seats.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/**
 * Answers of the facilitator that decide nothing: it may have settled (or may still), so the
 * payment stays `settling` and is asked about again. Anything else it says is an outcome.
 */
const UNDECIDED: ReadonlySet<string> = new Set([
  FACILITATOR_FAILURES.timeout,
  FACILITATOR_FAILURES.unreachable,
  FACILITATOR_FAILURES.httpError,
  FACILITATOR_FAILURES.invalidResponse,
]);

/** The longest wait between two attempts at one payment. */
const MAX_RETRY_DELAY_MS = 60_000;
/** How many settling payments one reconciliation pass takes on. */
const RECONCILE_BATCH = 20;

/** Where a settlement stands after an answer of the facilitator. */
export type SettlementOutcome =
  | { state: 'settled'; ticket: TicketView; settlement: SettlementView }
  | { state: 'voided'; ticket: TicketView; reason: string; message: string | undefined }
  | { state: 'settling'; ticket: TicketView; reason: string };

/**
 * The state machine of a payment through an http facilitator (docs/protocol/payments.md
 * "Settlement states"), one row of ticketing.settlements per pending ticket:
 *
 *   settling --facilitator: success--------------------> settled (ticket active, issued)
 *   settling --facilitator: success false, a reason----> voided (ticket cancelled, seat released)
 *   settling --timeout, unreachable, 5xx, garbage------> settling (asked again later, with backoff)
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
    private readonly changes: Changes,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly waitlist: WaitlistSeats,
  ) {}

  /**
   * Records a payment about to be settled for `ticket` (pending, its seat taken in the same
   * transaction). The reconciliation job leaves it alone while the request's own /settle may
   * still be waiting.
   */
  async open(
    manager: EntityManager,
    ticket: TicketRow,
    payment: { payer: string; payload: PaymentPayload; requirements: PaymentRequirements },
  ): Promise<void> {
    await queryRows(
      manager,
      `INSERT INTO ticketing.settlements
         (ticket_id, event_id, tier_id, payer, payment, requirements, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, now() + make_interval(secs => $7::double precision / 1000))`,
      [
        ticket.id,
        ticket.event_id,
        ticket.tier_id,
        payment.payer,
        JSON.stringify(payment.payload),
        JSON.stringify(payment.requirements),
        this.firstRetryDelayMs,
      ],
    );
  }

  /** Asks the facilitator to settle and concludes with its answer. */
  async settle(
    ticketId: string,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettlementOutcome> {
    return this.conclude(ticketId, await this.settlementOf(payload, requirements));
  }

  /**
   * The reconciliation pass: every payment still `settling` whose next attempt is due is leased
   * (its next attempt moved out, so no other replica asks at the same time) and settled again.
   * Returns how many it concluded.
   */
  async reconcile(): Promise<number> {
    const due = await queryRows<{
      ticket_id: string;
      attempts: number;
      payment: PaymentPayload;
      requirements: PaymentRequirements;
    }>(
      this.dataSource.manager,
      `UPDATE ticketing.settlements s
            SET attempts = s.attempts + 1,
                next_attempt_at = now() + make_interval(secs => LEAST($2::double precision, $3::double precision * 2 ^ s.attempts) / 1000)
          WHERE s.ticket_id IN (
            SELECT ticket_id FROM ticketing.settlements
             WHERE status = 'settling' AND next_attempt_at <= now()
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING s.ticket_id, s.attempts, s.payment, s.requirements`,
      [RECONCILE_BATCH, MAX_RETRY_DELAY_MS, this.firstRetryDelayMs],
    );
    let concluded = 0;
    for (const row of due) {
      const outcome = await this.settle(row.ticket_id, row.payment, row.requirements);
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

  private async settlementOf(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<SettleResult> {
    if (!this.facilitator) throw new Error('X402_FACILITATOR=http needs X402_FACILITATOR_URL');
    return this.facilitator.settle(payload, requirements);
  }

  /** Moves a `settling` payment by the facilitator's answer; a payment already concluded stays as it is. */
  private async conclude(ticketId: string, result: SettleResult): Promise<SettlementOutcome> {
    if (result.success) {
      return this.changes.run(async (manager) => {
        const [settled] = await queryRows<{ payer: string }>(
          manager,
          `UPDATE ticketing.settlements SET status = 'settled', transaction = $2, network = $3, concluded_at = now()
            WHERE ticket_id = $1 AND status = 'settling' RETURNING payer`,
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
          `UPDATE ticketing.tickets SET status = 'active' WHERE id = $1 AND status = 'pending'
           RETURNING ${TICKET_COLUMNS}`,
          [ticketId],
        );
        if (!row) {
          // Cancelled with its event while the payment was settling: the payment is recorded as
          // settled, and the refund is owed on the payment's own network.
          this.logger.error(
            { ticketId },
            'a payment settled for a ticket cancelled meanwhile: a refund is owed',
          );
          return this.current(manager, ticketId, settlement);
        }
        const ticket = toTicket(row);
        await this.changes.announce(manager, [
          { type: TicketTopics.issued, subject: ticket.eventId, data: ticket },
        ]);
        return { state: 'settled', ticket, settlement };
      });
    }
    const reason = result.errorReason ?? FACILITATOR_FAILURES.settleRefused;
    if (UNDECIDED.has(reason)) {
      return this.changes.run(async (manager) => {
        await queryRows(
          manager,
          `UPDATE ticketing.settlements SET last_error = $2 WHERE ticket_id = $1 AND status = 'settling'`,
          [ticketId, `${reason}: ${result.errorMessage ?? ''}`.slice(0, 1_000)],
        );
        return this.current(manager, ticketId, undefined, reason);
      });
    }
    return this.changes.run(async (manager) => {
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

/**
 * The reconciliation job: asks again about every payment still settling, every
 * SETTLEMENT_RETRY_INTERVAL_MS, on each replica (a payment is leased by one at a time).
 */
@Injectable()
export class SettlementReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly job: PeriodicJob | undefined;

  constructor(
    settlements: FacilitatorSettlements,
    @Inject(SETTINGS) settings: TicketingSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.job =
      settings.facilitator === 'http'
        ? new PeriodicJob(
            'settling payments asked again',
            settings.settlementRetryIntervalMs,
            () => settlements.reconcile(),
            logger,
          )
        : undefined;
  }

  onApplicationBootstrap(): void {
    this.job?.start({ runNow: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
  }
}

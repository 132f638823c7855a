// The typed calls of ticketing's server-side functions: one wrapper per function of ./functions/
// (<name>.sql, its one definition, applied by the migrate command after the migrations), with
// named arguments, the outcomes it answers, and its refusals (SQLSTATE TH001, `refusable`) as an
// outcome. Functions called in autocommit, as a transaction of their own, go through
// OutboxWriter.runStatement (deadlock and fault retries, then the relay woken); the others run in
// the caller's transaction, which OutboxWriter.run retries.
import {
  DomainError,
  type CloudEvent,
  type SignedReceiptView,
  type WaitlistEntryView,
} from '@townhall/contracts';
import {
  OutboxWriter,
  preparedStatement,
  queryRows,
  refusable,
  sqlState,
  type Refused,
} from '@townhall/platform/service';
import type { DataSource, EntityManager } from 'typeorm';

/** Why a seat cannot be taken: none left (in the tier or the event), or the event is not on sale. */
export type SeatRefusal = 'sold_out' | 'not_on_sale';
const SEAT_REFUSALS: readonly SeatRefusal[] = ['sold_out', 'not_on_sale'];

/** ticketing.take_seat (take_seat.sql): a seat of the tier and of the event total, in the caller's transaction. */
export function takeSeat(
  manager: EntityManager,
  args: { eventId: string; tierId: string },
): Promise<{ outcome: 'taken' } | Refused<SeatRefusal>> {
  return refusable(SEAT_REFUSALS, async () => {
    await queryRows(manager, 'SELECT ticketing.take_seat(p_event => $1, p_tier => $2)', [
      args.eventId,
      args.tierId,
    ]);
    return { outcome: 'taken' as const };
  });
}

/**
 * ticketing.take_seat_for (take_seat_for.sql): the seat of `agentId`'s paid ticket, in the
 * caller's transaction: its live waitlist offer for the tier accepted (and announced), else a
 * seat taken from the sale.
 */
export function takeSeatFor(
  manager: EntityManager,
  outbox: OutboxWriter,
  args: { eventId: string; tierId: string; agentId: string; at: Date },
): Promise<{ outcome: 'offer' | 'sale' } | Refused<SeatRefusal>> {
  return refusable(SEAT_REFUSALS, async () => {
    const [row] = await queryRows<{ outcome: 'offer' | 'sale' }>(
      manager,
      `SELECT ticketing.take_seat_for(p_event => $1, p_tier => $2, p_agent => $3, p_at => $4,
         p_offer_event => $5::jsonb) AS outcome`,
      [args.eventId, args.tierId, args.agentId, args.at, JSON.stringify(outbox.stamp())],
    );
    // An accepted offer is announced by the function, with the entry it built.
    if (row!.outcome === 'offer') outbox.sweepAfterCommit(manager);
    return { outcome: row!.outcome };
  });
}

/** What ticketing.purchase is given: the payment, the sale, and every id, time and event it writes. */
export interface PurchaseArgs {
  payer: string;
  nonce: string;
  fingerprint: string;
  network: string;
  eventId: string;
  tierId: string;
  hostId: string;
  /** Atomic units, a positive integer string. */
  amount: string;
  asset: string;
  ticketId: string;
  debitId: string;
  creditId: string;
  at: string;
  /**
   * Appended to the outbox with the purchase (the ticket issued, both ledger entries); the
   * function adds townhall.waitlist.accepted if it accepts the payer's waitlist offer.
   */
  events: CloudEvent[];
  /**
   * The version of the event's row the sale was decided on, when it was not read for this
   * purchase (a remembered row): 'stale', writing nothing, if the row is at another one now.
   */
  eventVersion?: number;
  /** The host's code the price was discounted by: its use is counted, and the ticket and entries record it. */
  code?: string;
  /** The x402 `payment-identifier` id the payment carries, claimed for the payer (payments/payment-ids.ts). */
  paymentId?: string;
  /** The x402 receipt signed for the ticket, kept on it. */
  receipt?: SignedReceiptView;
}

/** Why a code cannot be used (ticketing.use_code). */
export type CodeRefusal = 'code_not_found' | 'code_expired' | 'code_exhausted';
const CODE_REFUSALS: readonly CodeRefusal[] = ['code_not_found', 'code_expired', 'code_exhausted'];

/** A refused code, as the problem the client gets. */
export function codeProblem(refusal: CodeRefusal): DomainError {
  switch (refusal) {
    case 'code_not_found':
      return new DomainError('code.not_found', 'This event has no such code');
    case 'code_expired':
      return new DomainError('code.expired', 'This code has expired');
    case 'code_exhausted':
      return new DomainError('code.exhausted', 'This code has been used as many times as it may be');
  }
}

/**
 * ticketing.use_code (use_code.sql): one use of the event's code, in the caller's transaction
 * (the one that issues the ticket carrying it); the code as the host wrote it.
 */
export function useCode(
  manager: EntityManager,
  args: { eventId: string; code: string; at: Date },
): Promise<{ outcome: 'used'; code: string } | Refused<CodeRefusal>> {
  return refusable(CODE_REFUSALS, async () => {
    const [row] = await queryRows<{ code: string }>(
      manager,
      'SELECT ticketing.use_code(p_event => $1, p_code => $2, p_at => $3) AS code',
      [args.eventId, args.code, args.at],
    );
    return { outcome: 'used' as const, code: row!.code };
  });
}

export type PurchaseRefusal = 'nonce_reused' | 'id_reused' | 'insufficient_funds' | SeatRefusal | CodeRefusal;
const PURCHASE_REFUSALS: readonly PurchaseRefusal[] = [
  'nonce_reused',
  'id_reused',
  'insufficient_funds',
  ...SEAT_REFUSALS,
  ...CODE_REFUSALS,
];

export type PurchaseOutcome =
  /** Bought now: `ticketId` and the debit's id as the transaction. */
  | { outcome: 'purchased'; ticketId: string; transactionId: string }
  /** This payment bought `ticketId` before (the same payment sent again). */
  | { outcome: 'paid'; ticketId: string; transactionId: string }
  /** The payer holds `ticketId` already: nothing charged. */
  | { outcome: 'held'; ticketId: string }
  /** Another purchase of the payer's, in flight at the same time, took its one live ticket. */
  | { outcome: 'lost_race' }
  /** `eventVersion` is not the event's version now: nothing was written. */
  | { outcome: 'stale' }
  | Refused<PurchaseRefusal>;

interface PurchaseRow {
  outcome: 'purchased' | 'paid' | 'held' | 'stale';
  ticket: string | null;
  transaction_id: string | null;
  offer_accepted: boolean;
}

/**
 * ticketing.purchase (purchase.sql): a paid ticket on the ledger, one prepared statement that is
 * its own transaction, through `outbox.runStatement`.
 */
export function purchaseCall(
  dataSource: DataSource,
  outbox: OutboxWriter,
): (args: PurchaseArgs) => Promise<PurchaseOutcome> {
  const purchase = preparedStatement<PurchaseRow>(
    dataSource,
    'ticketing.purchase',
    `SELECT outcome, ticket, transaction_id, offer_accepted FROM ticketing.purchase(
       p_payer => $1, p_nonce => $2, p_fingerprint => $3, p_network => $4, p_event => $5, p_tier => $6,
       p_host => $7, p_amount => $8::numeric, p_asset => $9, p_ticket => $10, p_debit => $11,
       p_credit => $12, p_at => $13, p_events => $14::jsonb, p_offer_event => $15::jsonb,
       p_event_version => $16::integer, p_code => $17::text, p_payment_id => $18::text,
       p_receipt => $19::jsonb)`,
  );
  return async (args) => {
    try {
      return await refusable(PURCHASE_REFUSALS, async (): Promise<PurchaseOutcome> => {
        const [row] = await outbox.runStatement(
          () =>
            purchase([
              args.payer,
              args.nonce,
              args.fingerprint,
              args.network,
              args.eventId,
              args.tierId,
              args.hostId,
              args.amount,
              args.asset,
              args.ticketId,
              args.debitId,
              args.creditId,
              args.at,
              JSON.stringify(args.events),
              JSON.stringify(outbox.stamp()),
              args.eventVersion ?? null,
              args.code ?? null,
              args.paymentId ?? null,
              args.receipt === undefined ? null : JSON.stringify(args.receipt),
            ]),
          {
            // 'stale', 'held' and 'paid' announced nothing; a refusal rolled everything back.
            committed: ([bought]) => (bought?.outcome === 'purchased' ? args.events : []),
            // The payer's waitlist offer, accepted by take_seat_for, is announced by the function itself.
            sweep: ([bought]) => bought?.offer_accepted === true,
          },
        );
        const { outcome, ticket, transaction_id } = row!;
        if (outcome === 'stale') return { outcome };
        return outcome === 'held'
          ? { outcome, ticketId: ticket! }
          : { outcome, ticketId: ticket!, transactionId: transaction_id! };
      });
    } catch (error) {
      if (isSecondLiveTicket(error)) return { outcome: 'lost_race' };
      throw error;
    }
  };
}

/**
 * The unique index tickets_one_live_per_agent refused a second live ticket (live_ticket.sql, the
 * one definition of "already holds a ticket"): a write that raced past the read that asks it.
 */
export function isSecondLiveTicket(error: unknown): boolean {
  const { code, constraint } = sqlState(error);
  return code === '23505' && constraint === 'tickets_one_live_per_agent';
}

/**
 * ticketing.waitlist_entry_json (waitlist_entry_json.sql), the one definition of an entry's view:
 * select it `FROM ticketing.waitlist w` and read the rows' `entry`.
 */
export const WAITLIST_ENTRY = 'ticketing.waitlist_entry_json(w) AS entry';
export interface WaitlistEntryRow {
  entry: WaitlistEntryView;
}

import { Module, type DynamicModule } from '@nestjs/common';
import type { SignatureVerifier } from '@townhall/auth';
import { domainModule, type DomainModuleOptions } from '@townhall/platform/service';
import { TICKETING_SCHEMA } from './data-source.js';
import type { TicketingSettings } from './settings.js';
import { LedgerBook } from './ledger/ledger-book.js';
import { PayRefund } from './refunds/pay-refund.js';
import { RefundBook } from './refunds/refund-book.js';
import { RefundsHandler } from './refunds/refunds.handler.js';
import { RefundsOwed } from './refunds/refunds-owed.js';
import { FeePayer } from './payments/fee-payer.js';
import { PaymentRailsShutdown } from './payments/payment-rails-shutdown.js';
import type { PaymentRails } from './payments/payment-rails.js';
import { EventSales } from './projection/event-sales.js';
import { EventsProjection } from './projection/events-projection.js';
import { TicketsHandler } from './tickets/tickets.handler.js';
import { CancelEventTickets } from './tickets/cancel-event-tickets.js';
import { ReleaseSeat } from './tickets/release-seat.js';
import { Rsvp } from './tickets/rsvp.js';
import { SaleFactsReader } from './tickets/sale-facts.js';
import { SeatGate } from './tickets/seat-gate.js';
import { FacilitatorSettlements } from './payments/facilitator-settlements.js';
import { SettlementMoves } from './payments/settlement-moves.js';
import { PaymentReconciler } from './payments/payment-reconciler.js';
import { SettleFacilitatorPayment } from './tickets/settle-facilitator-payment.js';
import { SettleLedgerPayment } from './tickets/settle-ledger-payment.js';
import { TakeSeat } from './tickets/take-seat.js';
import { SeriesFollowers } from './follows/series-followers.js';
import { TicketBook } from './tickets/ticket-book.js';
import { JoinWaitlist } from './waitlist/join-waitlist.js';
import { LeaveWaitlist } from './waitlist/leave-waitlist.js';
import { OfferExpiry } from './waitlist/offer-expiry.js';
import { WaitlistBook } from './waitlist/waitlist-book.js';
import { WaitlistSeats } from './waitlist/waitlist-seats.js';
import { WaitlistHandler } from './waitlist/waitlist.handler.js';
import { InviteBook } from './invites/invite-book.js';
import { InviteChanges } from './invites/invite-changes.js';
import { InvitesHandler } from './invites/invites.handler.js';
import { CodeBook } from './codes/code-book.js';
import { CodeChanges } from './codes/code-changes.js';
import { CodesHandler } from './codes/codes.handler.js';
import { RequestBook } from './requests/request-book.js';
import { RequestChanges } from './requests/request-changes.js';
import { RequestsHandler } from './requests/requests.handler.js';
import { ReportsHandler } from './reports/reports.handler.js';
import { SalesBook } from './reports/sales-book.js';
import { FACILITATOR, RAILS, RECEIPT_KEYS, SIGNATURES, type ReceiptKeys } from './tokens.js';
import { PaymentExtensions } from './payments/payment-extensions.js';
import { PaymentIds } from './payments/payment-ids.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/ticketing';

/** What ticketing is registered with: the shared options, plus its payment rails and keys. */
export interface TicketingModuleOptions extends DomainModuleOptions<TicketingSettings> {
  signatures: SignatureVerifier;
  rails: PaymentRails;
  receiptKeys: ReceiptKeys;
}

/** What the module is made of (libs/platform domainModule). */
const LAYOUT = {
  schema: TICKETING_SCHEMA,
  source: SOURCE,
  handlers: [
    TicketsHandler,
    WaitlistHandler,
    InvitesHandler,
    RequestsHandler,
    CodesHandler,
    RefundsHandler,
    ReportsHandler,
  ],
  useCases: [
    Rsvp,
    TakeSeat,
    SettleLedgerPayment,
    SettleFacilitatorPayment,
    ReleaseSeat,
    CancelEventTickets,
    PayRefund,
    JoinWaitlist,
    LeaveWaitlist,
    InviteChanges,
    RequestChanges,
    CodeChanges,
  ],
  parts: [
    EventsProjection,
    EventSales,
    SeriesFollowers,
    LedgerBook,
    TicketBook,
    SaleFactsReader,
    SeatGate,
    FacilitatorSettlements,
    SettlementMoves,
    PaymentReconciler,
    PaymentExtensions,
    PaymentIds,
    PaymentRailsShutdown,
    FeePayer,
    RefundsOwed,
    RefundBook,
    WaitlistSeats,
    WaitlistBook,
    OfferExpiry,
    InviteBook,
    RequestBook,
    CodeBook,
    SalesBook,
  ],
};

@Module({})
export class TicketingModule {
  static register(options: TicketingModuleOptions): DynamicModule {
    return domainModule(TicketingModule, options, {
      ...LAYOUT,
      provide: [
        { provide: SIGNATURES, useValue: options.signatures },
        { provide: FACILITATOR, useValue: options.rails.facilitator },
        { provide: RAILS, useValue: options.rails },
        { provide: RECEIPT_KEYS, useValue: options.receiptKeys },
      ],
    });
  }
}

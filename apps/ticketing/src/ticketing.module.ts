import { Module, type DynamicModule } from '@nestjs/common';
import type { SignatureVerifier } from '@townhall/auth';
import { OutboxWriter, type Logger, type OutboxRelay, type ServiceClient } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { LedgerBook } from './ledger/ledger-book.js';
import { PayRefund } from './refunds/pay-refund.js';
import { RefundBook } from './refunds/refund-book.js';
import { RefundsHandler } from './refunds/refunds.handler.js';
import { RefundsOwed } from './refunds/refunds-owed.js';
import { FeePayer } from './payments/fee-payer.js';
import { PaymentRailsShutdown } from './payments/payment-rails-shutdown.js';
import type { PaymentRails } from './payments/payment-rails.js';
import { DomainEventHandler } from './projection/domain-event-handler.js';
import { EventsProjection } from './projection/events-projection.js';
import { TicketsHandler } from './tickets/tickets.handler.js';
import { CancelEventTickets } from './tickets/cancel-event-tickets.js';
import { ReleaseSeat } from './tickets/release-seat.js';
import { Rsvp } from './tickets/rsvp.js';
import { SaleFactsReader } from './tickets/sale-facts.js';
import { SeatGate } from './tickets/seat-gate.js';
import { FacilitatorSettlements } from './tickets/facilitator-settlements.js';
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
import {
  CLOCK,
  FACILITATOR,
  LOGGER,
  RAILS,
  SERVICES,
  SETTINGS,
  SIGNATURES,
  type Clock,
  type TicketingSettings,
} from './tokens.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/ticketing';

export interface TicketingModuleOptions {
  dataSource: DataSource;
  relay: OutboxRelay;
  services: ServiceClient;
  logger: Logger;
  settings: TicketingSettings;
  signatures: SignatureVerifier;
  rails: PaymentRails;
  clock?: Clock;
}

@Module({})
export class TicketingModule {
  static register(options: TicketingModuleOptions): DynamicModule {
    return {
      module: TicketingModule,
      controllers: [
        TicketsHandler,
        WaitlistHandler,
        InvitesHandler,
        RequestsHandler,
        CodesHandler,
        RefundsHandler,
        ReportsHandler,
      ],
      providers: [
        { provide: DataSource, useValue: options.dataSource },
        {
          provide: OutboxWriter,
          useValue: new OutboxWriter(options.dataSource, options.relay, {
            schema: 'ticketing',
            source: SOURCE,
          }),
        },
        { provide: SERVICES, useValue: options.services },
        { provide: LOGGER, useValue: options.logger },
        { provide: SETTINGS, useValue: options.settings },
        { provide: SIGNATURES, useValue: options.signatures },
        { provide: FACILITATOR, useValue: options.rails.facilitator },
        { provide: RAILS, useValue: options.rails },
        PaymentRailsShutdown,
        { provide: CLOCK, useValue: options.clock ?? (() => new Date()) },
        EventsProjection,
        LedgerBook,
        TicketBook,
        TakeSeat,
        SeriesFollowers,
        SettleLedgerPayment,
        FacilitatorSettlements,
        PaymentReconciler,
        SettleFacilitatorPayment,
        Rsvp,
        SaleFactsReader,
        InviteBook,
        InviteChanges,
        RequestBook,
        CodeBook,
        CodeChanges,
        RequestChanges,
        SalesBook,
        FeePayer,
        SeatGate,
        ReleaseSeat,
        CancelEventTickets,
        RefundsOwed,
        RefundBook,
        PayRefund,
        WaitlistSeats,
        WaitlistBook,
        JoinWaitlist,
        LeaveWaitlist,
        OfferExpiry,
        DomainEventHandler,
      ],
    };
  }
}

import { Controller, Inject } from '@nestjs/common';
import {
  Attendance,
  DomainError,
  Inventory,
  signedMeta,
  Ledger,
  Tickets,
  type MessageMeta,
  type ParsedRequestOf,
} from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { LedgerBook } from '../ledger/ledger-book.js';
import { EventsProjection } from '../projection/events-projection.js';
import { ReleaseSeat } from './release-seat.js';
import { Rsvp } from './rsvp.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';
import { RECEIPT_KEYS, type ReceiptKeys } from '../tokens.js';

/** Ticketing's message handlers: one per contract in libs/contracts/src/ticketing.ts. */
@Controller()
export class TicketsHandler {
  constructor(
    private readonly rsvps: Rsvp,
    private readonly releases: ReleaseSeat,
    private readonly tickets: TicketBook,
    private readonly ledger: LedgerBook,
    private readonly events: EventsProjection,
    @Inject(RECEIPT_KEYS) private readonly receiptKeys: ReceiptKeys,
  ) {}

  /** The events service asks before it records a new capacity or tier set. */
  @Handle(Inventory.changeCapacity)
  async changeCapacity(data: ParsedRequestOf<typeof Inventory.changeCapacity>, meta: MessageMeta) {
    const { caller, requestId } = signedMeta(meta);
    return { eventId: data.eventId, applied: await this.events.decideCapacity(data, caller, requestId) };
  }

  @Handle(Tickets.rsvp)
  rsvp(data: ParsedRequestOf<typeof Tickets.rsvp>, meta: MessageMeta) {
    return this.rsvps.rsvp(signedMeta(meta), data.eventId, data.tierId, data.payment, data.code);
  }

  @Handle(Tickets.held)
  async held(data: ParsedRequestOf<typeof Tickets.held>, meta: MessageMeta) {
    // A pending ticket (its payment still settling) is shown too: the buyer follows it here.
    const ticket = await this.tickets.liveTicket(data.eventId, signedMeta(meta).caller);
    if (!ticket) throw new DomainError('ticket.not_found', 'You hold no ticket for this event');
    return toTicket(ticket);
  }

  /** The public keys of x402 offers and receipts (GET /.well-known/jwks.json): anyone may ask. */
  @Handle(Tickets.receiptKeys)
  async keys() {
    return this.receiptKeys.published;
  }

  @Handle(Tickets.release)
  release(data: ParsedRequestOf<typeof Tickets.release>, meta: MessageMeta) {
    return this.releases.release(signedMeta(meta).caller, data.eventId);
  }

  @Handle(Tickets.mine)
  mine(data: ParsedRequestOf<typeof Tickets.mine>, meta: MessageMeta) {
    return this.tickets.mine(signedMeta(meta).caller, data.limit, data.cursor);
  }

  @Handle(Tickets.attendees)
  attendees(data: ParsedRequestOf<typeof Tickets.attendees>, meta: MessageMeta) {
    const { caller, requestId } = signedMeta(meta);
    return this.tickets.attendees(caller, requestId, data.eventId, data.limit, data.cursor);
  }

  /** Whether an agent holds a live ticket (engagement asks before letting an attendee act). */
  @Handle(Attendance.get)
  async attendance(data: ParsedRequestOf<typeof Attendance.get>) {
    const held = await this.tickets.activeTicket(data.eventId, data.agentId);
    return { eventId: data.eventId, agentId: data.agentId, holdsTicket: held !== undefined };
  }

  @Handle(Ledger.entries)
  entries(data: ParsedRequestOf<typeof Ledger.entries>, meta: MessageMeta) {
    return this.ledger.entries(signedMeta(meta).caller, data.limit, data.cursor);
  }

  @Handle(Ledger.balance)
  balance(_data: ParsedRequestOf<typeof Ledger.balance>, meta: MessageMeta) {
    return this.ledger.balance(signedMeta(meta).caller);
  }

  @Handle(Ledger.faucet)
  faucet(data: ParsedRequestOf<typeof Ledger.faucet>, meta: MessageMeta) {
    return this.ledger.faucet(signedMeta(meta).caller, data.amount, data.asset ?? 'USDC', data.network);
  }
}

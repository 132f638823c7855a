import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type MessageMeta, type RsvpReply } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { decodePaymentHeader, type PaymentPayload } from '@townhall/x402';
import { DataSource } from 'typeorm';
import { asPaymentProblem, paymentRequired, type PaymentRefusal } from '../payments/payment-problems.js';
import { requirementsFor, tierOfResource } from '../payments/requirements.js';
import { tiersOf, type EventRow, type TierOffer } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { paymentsSettled, ticketsSold } from '../ticketing-metrics.js';
import { CLOCK, SETTINGS, type Clock, type TicketingSettings } from '../tokens.js';
import { SettleFacilitatorPayment } from './settle-facilitator-payment.js';
import { SettleLedgerPayment } from './settle-ledger-payment.js';
import { TakeSeat } from './take-seat.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';

const ON_SALE = new Set(['scheduled', 'live']);

/**
 * An RSVP (docs/product.md "Tickets, payments, ledger"; docs/protocol/payments.md): the ticket the
 * caller holds already, a free ticket, or for a paid event the 402 with what to pay and then the
 * settlement of the payment sent, on the ledger or through a facilitator.
 */
@Injectable()
export class Rsvp {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsProjection,
    private readonly book: TicketBook,
    private readonly takeSeat: TakeSeat,
    private readonly ledgerPayment: SettleLedgerPayment,
    private readonly facilitatorPayment: SettleFacilitatorPayment,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async rsvp(
    meta: MessageMeta & { caller: string },
    eventId: string,
    tierId: string | undefined,
    header: string | undefined,
  ): Promise<RsvpReply> {
    const reply = await this.takeTicket(meta, eventId, tierId, header);
    if (reply.created) {
      ticketsSold.inc({ mode: reply.ticket.price !== '0' && reply.settlement ? 'paid' : 'free' });
      if (reply.settlement && reply.ticket.asset) {
        paymentsSettled.inc({ facilitator: this.settings.facilitator, asset: reply.ticket.asset });
      }
    }
    return reply;
  }

  private async takeTicket(
    meta: MessageMeta & { caller: string },
    eventId: string,
    tierId: string | undefined,
    header: string | undefined,
  ): Promise<RsvpReply> {
    const event = await this.events.ensure(eventId, meta.caller, meta.requestId);
    if (header !== undefined && event.ticketing.mode !== 'free' && this.settings.facilitator === 'ledger') {
      // ticketing.purchase asks whether the caller holds a ticket already, in the same call; a
      // refusal before it did (or by it) answers with that ticket just the same.
      try {
        return await this.payOnLedger(meta.caller, event, tierId, header);
      } catch (error) {
        const held =
          error instanceof DomainError && (await this.book.liveTicket(event.event_id, meta.caller));
        if (held) return { ticket: toTicket(held), created: false, settlement: null };
        throw error;
      }
    }
    const held = await this.book.liveTicket(event.event_id, meta.caller);
    if (held) return { ticket: toTicket(held), created: false, settlement: null };
    requireOnSale(event);

    if (event.ticketing.mode === 'free') return this.takeSeat.free(event, meta.caller);

    const accepts = requirementsFor(this.settings, event, await this.availableTiers(event, meta.caller));
    if (header === undefined) {
      throw paymentRequired(
        'payment.required',
        'This event sells paid tickets: pay with X-PAYMENT',
        'X-PAYMENT header is required',
        accepts,
      );
    }
    const refuse: PaymentRefusal = async (code, detail, reason) =>
      paymentRequired(code, detail, reason, accepts);
    const { payload, tier } = await this.chosen(event, tierId, header, refuse);
    const requirements = accepts.find((entry) => entry.extra.tierId === tier.tierId);
    if (!requirements) throw soldOut(tier.tierId);
    return this.facilitatorPayment.settle({ event, caller: meta.caller, payload, requirements, refuse });
  }

  /**
   * A payment on the ledger: nothing is read before ticketing.purchase but the event, whose
   * seat check is the guard; what is still on sale is read only to answer a refusal.
   */
  private async payOnLedger(
    caller: string,
    event: EventRow,
    tierId: string | undefined,
    header: string,
  ): Promise<RsvpReply> {
    requireOnSale(event);
    const refusal =
      (wanted?: string): PaymentRefusal =>
      async (code, detail, reason) => {
        const accepts = requirementsFor(this.settings, event, await this.availableTiers(event, caller));
        if (wanted !== undefined && !accepts.some((entry) => entry.extra.tierId === wanted))
          return soldOut(wanted);
        return paymentRequired(code, detail, reason, accepts);
      };
    const { payload, tier } = await this.chosen(event, tierId, header, refusal());
    const requirements = requirementsFor(this.settings, event, new Set([tier.tierId]))[0]!;
    return this.ledgerPayment.settle({ event, caller, payload, requirements, refuse: refusal(tier.tierId) });
  }

  /** The payment decoded and the tier it buys: the one named, the one it signed for, or the only one. */
  private async chosen(
    event: EventRow,
    tierId: string | undefined,
    header: string,
    refuse: PaymentRefusal,
  ): Promise<{ payload: PaymentPayload; tier: TierOffer }> {
    let payload: PaymentPayload;
    try {
      payload = decodePaymentHeader(header);
    } catch (error) {
      throw await asPaymentProblem(error, refuse);
    }
    const wanted =
      tierId ?? tierOfPayload(payload) ?? (event.ticketing.mode === 'single' ? 'general' : undefined);
    const tiers = tiersOf(event.ticketing, event.capacity);
    const tier = tiers.find((offer) => offer.tierId === wanted);
    if (!tier) {
      throw new DomainError('validation.failed', 'tierId: name one of the event tiers', [
        { field: 'tierId', message: `must be one of ${tiers.map((t) => t.tierId).join(', ')}` },
      ]);
    }
    return { payload, tier };
  }

  /** The tiers the caller can buy: those with a seat, and the one whose seat a waitlist offer holds for it. */
  private async availableTiers(event: EventRow, caller: string): Promise<Set<string>> {
    const rows = await queryRows<{ tier_id: string }>(
      this.dataSource,
      `SELECT i.tier_id FROM ticketing.inventory i JOIN ticketing.events e USING (event_id)
       WHERE i.event_id = $1 AND i.sold < i.capacity AND e.sold < e.capacity
       UNION
       SELECT w.tier_id FROM ticketing.waitlist w
       WHERE w.event_id = $1 AND w.agent_id = $2 AND w.status = 'offered' AND w.offer_expires_at > $3`,
      [event.event_id, caller, this.clock()],
    );
    return new Set(rows.map((row) => row.tier_id));
  }
}

/** RSVPs (and waitlist joins) are taken while the event is scheduled or live. */
export function requireOnSale(event: Pick<EventRow, 'status'>): void {
  if (!ON_SALE.has(event.status)) throw new DomainError('ticket.not_on_sale', `The event is ${event.status}`);
}

function soldOut(tierId: string): DomainError {
  return new DomainError('capacity.sold_out', `No seat is left in tier ${tierId}`);
}

function tierOfPayload(payload: PaymentPayload): string | undefined {
  const authorization = (payload.payload as { authorization?: { resource?: unknown } }).authorization;
  return typeof authorization?.resource === 'string' ? tierOfResource(authorization.resource) : undefined;
}

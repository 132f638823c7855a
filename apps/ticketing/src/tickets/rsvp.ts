import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type MessageMeta, type RsvpReply, type TicketReply } from '@townhall/contracts';
import { decodePaymentHeader, type PaymentPayload, type PaymentRequirements } from '@townhall/x402';
import { SETTINGS } from '@townhall/platform/service';
import { notInvited } from '../access/admission.js';
import { RequestChanges } from '../requests/request-changes.js';
import { CodeBook } from '../codes/code-book.js';
import type { CodeRow } from '../codes/code-row.js';
import { tierOnSale, tiersOnSale, unknownTier } from '../codes/pricing.js';
import { PaymentExtensions } from '../payments/payment-extensions.js';
import { PaymentIds } from '../payments/payment-ids.js';
import { FeePayer } from '../payments/fee-payer.js';
import { requirementsFor, sellsAssetOf, tierOfResource } from '../payments/requirements.js';
import { assetOf, type EventRow, type TierOffer } from '../projection/event-row.js';
import { paymentsSettled, ticketsSold } from '../ticketing-metrics.js';
import type { PaymentRails } from '../payments/payment-rails.js';
import { RAILS } from '../tokens.js';
import type { TicketingSettings } from '../settings.js';
import { buyableTiers, canBuy, DecideOnRead, SaleFactsReader, type SaleFacts } from './sale-facts.js';
import { requireOnSale, soldOut } from './sale-refusals.js';
import { SeatGate } from './seat-gate.js';
import { isRefused, paymentRefused, type PaymentRefused, type Purchase, type Settled } from './purchase.js';
import { SettleFacilitatorPayment } from './settle-facilitator-payment.js';
import { SettleLedgerPayment } from './settle-ledger-payment.js';
import { TakeSeat } from './take-seat.js';
import { TicketBook } from './ticket-book.js';
import { toTicket } from './ticket-row.js';

/**
 * An RSVP (docs/product.md "Tickets, payments, ledger"; docs/protocol/payments.md): the ticket the
 * caller holds already, a free ticket, or for a paid event the 402 with what to pay and then the
 * settlement of the payment sent, on the ledger or through a facilitator.
 */
@Injectable()
export class Rsvp {
  constructor(
    private readonly sale: SaleFactsReader,
    private readonly gate: SeatGate,
    private readonly book: TicketBook,
    private readonly takeSeat: TakeSeat,
    private readonly ledgerPayment: SettleLedgerPayment,
    private readonly facilitatorPayment: SettleFacilitatorPayment,
    private readonly feePayer: FeePayer,
    private readonly requests: RequestChanges,
    private readonly codes: CodeBook,
    private readonly ids: PaymentIds,
    private readonly extensions: PaymentExtensions,
    @Inject(RAILS) private readonly rails: PaymentRails,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
  ) {}

  async rsvp(
    meta: MessageMeta & { caller: string },
    eventId: string,
    tierId: string | undefined,
    header: string | undefined,
    code?: string,
  ): Promise<RsvpReply> {
    const reply = await this.takeTicket(meta, eventId, tierId, header, code);
    if ('ticket' in reply && reply.created) {
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
    codeText: string | undefined,
  ): Promise<RsvpReply> {
    // A payment with a payment-identifier the payer used before is answered as that one was
    // (the same payment), or refused (another), before anything else: the id is the client's word
    // that this is a retry.
    const identified = header === undefined ? undefined : this.ids.identified(header);
    if (identified) {
      const earlier = await this.ids.earlier(meta.caller, identified);
      if (earlier) return earlier;
    }
    const paymentId = identified?.id;
    // A code's price is decided on a read, which says whether the code can be used.
    if (header !== undefined && codeText === undefined) {
      const bought = await this.duringBusySale(meta.caller, eventId, tierId, header, paymentId);
      if (bought) return bought;
    }
    const facts = await this.sale.read(eventId, meta.caller, meta.requestId);
    const { event, held } = facts;
    if (held) return { ticket: toTicket(held), created: false, settlement: null };
    requireOnSale(event);
    if (!facts.admitted) {
      // An event that needs approval: the RSVP is the agent's request (nothing is charged).
      if (event.access === 'approval')
        return { request: await this.requests.ask(event, meta.caller, tierId) };
      throw notInvited();
    }

    // The tiers this RSVP may buy, at the prices it pays (codes/pricing.ts).
    const code = codeText === undefined ? undefined : await this.codes.usable(event.event_id, codeText);
    const onSale = tiersOnSale(event, code);
    if (code && onSale.length === 0)
      throw new DomainError('code.not_for_tier', `Code ${code.code} applies to no tier on sale`);
    const named =
      tierId === undefined
        ? onSale.length === 1
          ? onSale[0]
          : undefined
        : tierOnSale(event, onSale, tierId, code);

    if (event.ticketing.mode === 'free' || named?.price === '0') {
      const tier = named ?? onSale[0]!;
      if (!canBuy(facts, tier.tierId)) throw soldOut(tier.tierId);
      const ticket = { tierId: tier.tierId, ...(code ? { code: code.code } : {}) };
      return this.gated(facts, tier.tierId, meta.caller, [], () =>
        this.takeSeat.free(event, meta.caller, ticket),
      );
    }

    if (!sellsAssetOf(this.settings, event)) {
      throw new DomainError(
        'ticket.not_on_sale',
        `This service takes ${this.settings.asset} on ${this.settings.network}; the event is priced in ${assetOf(event.ticketing)}`,
      );
    }
    // A code that makes some tiers free, with none named: the RSVP says which it takes.
    if (named === undefined && onSale.some((tier) => tier.price === '0'))
      throw new DomainError('validation.failed', 'tierId: name the tier to take with this code', [
        { field: 'tierId', message: `must be one of ${onSale.map((t) => t.tierId).join(', ')}` },
      ]);
    // On a chain, every way to pay names the facilitator's fee payer (a facilitator that cannot
    // say is 503: nothing can be paid, and nothing was charged).
    const chain = this.settings.asset === undefined ? undefined : { feePayer: await this.feePayer.current() };
    // solana-local is a chain of our own: the host's token account is opened for it, as a host on
    // devnet or mainnet must open its own before it sells (docs/tickets-and-payments.md "Getting paid in USDC").
    await this.rails.local?.chain.ensureTokenAccount(event.host_id);
    const buyable = buyableTiers(facts);
    const accepts = requirementsFor(
      this.settings,
      event,
      onSale.filter((tier) => buyable.has(tier.tierId)),
      chain,
      code?.code,
    );
    if (header === undefined) {
      throw await this.extensions.paymentRequired(
        'payment.required',
        'This event sells paid tickets: pay with X-PAYMENT',
        'X-PAYMENT header is required',
        accepts,
        event.event_id,
      );
    }
    const chosen = this.chosen(event, onSale, tierId, header, code);
    if (isRefused(chosen)) throw await this.paymentRequired(chosen, accepts, event.event_id);
    const { payload, tier } = chosen;
    const requirements = accepts.find((entry) => entry.extra.tierId === tier.tierId);
    // Sold out (as far as a read without locks can tell): refused before any payment work.
    if (!requirements) throw soldOut(tier.tierId);
    const purchase: Purchase = {
      event,
      caller: meta.caller,
      payload,
      requirements,
      ...(code ? { code: code.code } : {}),
      ...(paymentId === undefined ? {} : { paymentId }),
    };
    if (this.settings.facilitator !== 'ledger') {
      const settled = await this.facilitatorPayment.settle(purchase);
      if (isRefused(settled)) throw await this.paymentRequired(settled, accepts, event.event_id);
      return settled;
    }
    return this.gated(facts, tier.tierId, meta.caller, accepts, () => this.ledgerPayment.settle(purchase));
  }

  /** A refused payment, as the 402 of what is on sale (or 409 `capacity.sold_out` when nothing is). */
  private paymentRequired(
    refused: PaymentRefused,
    accepts: PaymentRequirements[],
    eventId: string,
  ): Promise<DomainError> {
    return this.extensions.paymentRequired(refused.refused, refused.detail, refused.reason, accepts, eventId);
  }

  /**
   * A paid ticket on the ledger without a read of its sale, while the tier's sale is busy in this
   * process (SeatGate.admitBusy: purchases in flight, seats left for more): decided on the event's
   * row as the last read gave it, which ticketing.purchase checks against the row's version. The
   * caller's own ticket and waitlist offer are the purchase's to find (it answers 'held', or takes
   * the offer's seat). Whatever it would refuse, and a row that is no longer the event's, is
   * decided again on a read (undefined), so every refusal is the read path's.
   */
  private async duringBusySale(
    caller: string,
    eventId: string,
    tierId: string | undefined,
    header: string,
    paymentId: string | undefined,
  ): Promise<TicketReply | undefined> {
    if (this.settings.facilitator !== 'ledger' || this.settings.asset !== undefined) return undefined;
    const event = this.sale.rememberedEvent(eventId);
    // Purchases of an event that is not open are decided on a read, which says whether it admits the caller.
    if (!event || !event.on_sale || event.ticketing.mode === 'free' || event.access !== 'open')
      return undefined;
    if (!sellsAssetOf(this.settings, event)) return undefined;
    try {
      const onSale = tiersOnSale(event);
      const chosen = this.chosen(event, onSale, tierId, header);
      if (isRefused(chosen)) return undefined;
      const { payload, tier } = chosen;
      const [requirements] = requirementsFor(this.settings, event, [tier]);
      if (!requirements) return undefined;
      const settled = await this.gate.admitBusy(
        eventId,
        tier.tierId,
        () =>
          this.ledgerPayment.settle({
            event,
            caller,
            payload,
            requirements,
            eventVersion: event.version,
            ...(paymentId === undefined ? {} : { paymentId }),
          }),
        tookSeat,
      );
      // A refused payment is decided again on a read, as every refusal of this path is.
      return settled === undefined || isRefused(settled) ? undefined : settled;
    } catch (error) {
      if (error instanceof DecideOnRead || error instanceof DomainError) return undefined;
      throw error;
    }
  }

  /**
   * A purchase through the tier's SeatGate, unless a waitlist offer holds the caller's seat already;
   * a refused payment answered with the 402 of `accepts`. A refusal after a concurrent RSVP of the
   * caller's own won (ticketing.purchase asks again in its transaction; the gate refuses whoever
   * waited for the last seat) answers with that ticket.
   */
  private async gated(
    facts: SaleFacts,
    tierId: string,
    caller: string,
    accepts: PaymentRequirements[],
    purchase: () => Promise<Settled>,
  ): Promise<TicketReply> {
    try {
      const settled =
        facts.offered === tierId
          ? await purchase()
          : await this.gate.through(
              facts.event.event_id,
              tierId,
              facts.seatsLeft.get(tierId) ?? 0,
              purchase,
              tookSeat,
            );
      if (isRefused(settled)) throw await this.paymentRequired(settled, accepts, facts.event.event_id);
      return settled;
    } catch (error) {
      const won = error instanceof DomainError && (await this.book.liveTicket(facts.event.event_id, caller));
      if (won) return { ticket: toTicket(won), created: false, settlement: null };
      throw error;
    }
  }

  /**
   * The payment decoded and the tier it buys, among those on sale to this RSVP: the one named, the
   * one it signed for, or the only one.
   */
  private chosen(
    event: EventRow,
    onSale: readonly TierOffer[],
    tierId: string | undefined,
    header: string,
    code?: CodeRow,
  ): { payload: PaymentPayload; tier: TierOffer } | PaymentRefused {
    let payload: PaymentPayload;
    try {
      payload = decodePaymentHeader(header);
    } catch (error) {
      return paymentRefused(error);
    }
    const wanted = tierId ?? tierOfPayload(payload) ?? (onSale.length === 1 ? onSale[0]!.tierId : undefined);
    if (wanted === undefined) throw unknownTier(event);
    return { payload, tier: tierOnSale(event, onSale, wanted, code) };
  }
}

/** Whether a purchase took a seat (what the SeatGate counts). */
function tookSeat(settled: Settled): boolean {
  return !isRefused(settled) && settled.created;
}

/**
 * The tier a payment names: a ledger payment in its signed resource; an x402 v2 payment in the
 * accept it echoes (`accepted.extra.tierId`, unsigned: it only picks the tier, whose price, payee
 * and memo the payment is then checked against).
 */
function tierOfPayload(payload: PaymentPayload): string | undefined {
  const authorization = (payload.payload as { authorization?: { resource?: unknown } }).authorization;
  if (typeof authorization?.resource === 'string') return tierOfResource(authorization.resource);
  const accepted = (payload.accepted as { extra?: { tierId?: unknown } } | undefined)?.extra?.tierId;
  return typeof accepted === 'string' ? accepted : undefined;
}

import { Inject, Injectable } from '@nestjs/common';
import {
  CursorKey,
  DomainError,
  cursorCodec,
  isUuid,
  TicketTopics,
  type MessageMeta,
  type Page,
  type RsvpReply,
  type SettlementView,
  type TicketView,
} from '@townhall/contracts';
import { Changes, queryRows } from '@townhall/platform/service';
import {
  checkLedgerPayment,
  decodePaymentHeader,
  paymentFingerprint,
  paymentRequiredBody,
  PaymentError,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
} from '@townhall/x402';
import type { SignatureVerifier } from '@townhall/auth';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { LedgerBook } from '../ledger/ledger-book.js';
import { tiersOf, type EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { requirementsFor, tierOfResource } from '../payments/requirements.js';
import { CLOCK, FACILITATOR, SETTINGS, SIGNATURES, type Clock, type TicketingSettings } from '../tokens.js';
import { AlreadyHolding, insertTicket, releaseSeat, takeSeat } from './seats.js';
import { paymentsSettled, ticketsSold } from '../ticketing-metrics.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/** Tickets page by (created_at, id). */
const TICKET_CURSOR = cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid]));

const ON_SALE = new Set(['scheduled', 'live']);

/** Thrown inside a purchase when this exact payment was already settled: answer with its ticket. */
class AlreadyPaid extends Error {
  constructor(
    readonly ticketId: string,
    readonly transaction: string,
  ) {
    super('already paid');
  }
}

/**
 * RSVP and ticket purchase (docs/product.md "Tickets, payments, ledger"; docs/protocol/payments.md). A paid
 * RSVP on the ledger is one transaction: claim (payer, nonce), take the seat, move the
 * money, write the entries, issue the ticket. Any failure rolls all of it back.
 */
@Injectable()
export class TicketsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: Changes,
    private readonly events: EventsProjection,
    private readonly ledger: LedgerBook,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SIGNATURES) private readonly signatures: SignatureVerifier,
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
  ) {}

  async rsvp(
    meta: MessageMeta & { caller: string },
    eventId: string,
    tierId: string | undefined,
    header: string | undefined,
  ): Promise<RsvpReply> {
    const reply = await this.takeTicket(meta, eventId, tierId, header);
    if (reply.created) {
      const mode = reply.ticket.price === '0' ? 'free' : reply.settlement ? 'paid' : 'free';
      ticketsSold.inc({ mode });
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
    const held = await this.activeTicket(this.dataSource.manager, event.event_id, meta.caller);
    if (held) return { ticket: toTicket(held), created: false, settlement: null };
    if (!ON_SALE.has(event.status))
      throw new DomainError('ticket.not_on_sale', `The event is ${event.status}`);

    if (event.ticketing.mode === 'free') return this.issueFree(event, meta.caller);

    const accepts = requirementsFor(this.settings, event, await this.availableTiers(event));
    if (header === undefined) {
      throw paymentRequired(
        'payment.required',
        'This event sells paid tickets: pay with X-PAYMENT',
        'X-PAYMENT header is required',
        accepts,
      );
    }
    let payload: PaymentPayload;
    try {
      payload = decodePaymentHeader(header);
    } catch (error) {
      throw asPaymentProblem(error, accepts);
    }
    const wanted =
      tierId ?? tierOfPayload(payload) ?? (event.ticketing.mode === 'single' ? 'general' : undefined);
    const tier = tiersOf(event.ticketing, event.capacity).find((offer) => offer.tierId === wanted);
    if (!tier) {
      throw new DomainError('validation.failed', 'tierId: name one of the event tiers', [
        {
          field: 'tierId',
          message: `must be one of ${tiersOf(event.ticketing, event.capacity)
            .map((t) => t.tierId)
            .join(', ')}`,
        },
      ]);
    }
    const requirements = accepts.find((entry) => entry.extra.tierId === tier.tierId);
    if (!requirements) throw new DomainError('capacity.sold_out', `No seat is left in tier ${tier.tierId}`);
    return this.settings.facilitator === 'ledger'
      ? this.payOnLedger(event, meta.caller, payload, requirements, accepts)
      : this.payThroughFacilitator(event, meta.caller, payload, requirements, accepts);
  }

  /** The holder gives back a free ticket; paid tickets are refunded only by cancelling the event. */
  async release(caller: string, eventId: string): Promise<TicketView> {
    const released = await this.changes.run(async (manager) => {
      const ticket = await this.activeTicket(manager, eventId, caller, true);
      if (!ticket) throw new DomainError('ticket.not_found', 'You hold no ticket for this event');
      if (ticket.price !== '0')
        throw new DomainError(
          'ticket.not_cancellable',
          'Paid tickets are refunded when the event is cancelled',
        );
      const [row] = await queryRows<TicketRow>(
        manager,
        `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
        [ticket.id],
      );
      await releaseSeat(manager, ticket.event_id, ticket.tier_id);
      const view = toTicket(row!);
      await this.changes.announce(manager, [
        { type: TicketTopics.cancelled, subject: view.eventId, data: view },
      ]);
      return view;
    });
    return released;
  }

  async mine(caller: string, limit: number, cursor: string | undefined): Promise<Page<TicketView>> {
    return this.page('holder_id = $1', [caller], limit, cursor);
  }

  /** The attendee list: the host and moderators only. */
  async attendees(
    caller: string,
    requestId: string,
    eventId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<TicketView>> {
    const event = await this.events.ensure(eventId, caller, requestId);
    if (event.host_id !== caller && !event.moderators.includes(caller)) {
      throw new DomainError('role.forbidden', 'Only the host and moderators see the attendee list');
    }
    return this.page(`event_id = $1 AND status = 'active'`, [event.event_id], limit, cursor);
  }

  /** Issues a free ticket, for an RSVP or on behalf of a series follower. */
  async issueFree(event: EventRow, holder: string): Promise<RsvpReply> {
    try {
      const ticket = await this.changes.run((manager) => this.issueFreeIn(manager, event, holder));
      return { ticket, created: true, settlement: null };
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.existing(event.event_id, holder);
      throw error;
    }
  }

  async issueFreeIn(manager: EntityManager, event: EventRow, holder: string): Promise<TicketView> {
    const [tier] = tiersOf(event.ticketing, event.capacity);
    await takeSeat(manager, event.event_id, tier!.tierId);
    const row = await insertTicket(manager, {
      eventId: event.event_id,
      tierId: tier!.tierId,
      holderId: holder,
      price: '0',
      asset: null,
      status: 'active',
    });
    const view = toTicket(row);
    await this.changes.announce(manager, [{ type: TicketTopics.issued, subject: view.eventId, data: view }]);
    return view;
  }

  private async payOnLedger(
    event: EventRow,
    caller: string,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    accepts: PaymentRequirements[],
  ): Promise<RsvpReply> {
    let authorization;
    try {
      authorization = checkLedgerPayment(payload, requirements, {
        caller,
        now: this.clock(),
        verify: (agentId, message, signature) => this.signatures.verifyMessage(agentId, message, signature),
      });
    } catch (error) {
      throw asPaymentProblem(error, accepts);
    }
    const fingerprint = paymentFingerprint(payload);
    const tierId = requirements.extra.tierId;
    try {
      return await this.changes.run(async (manager) => {
        const claimed = await queryRows(
          manager,
          `INSERT INTO ticketing.payments (payer, nonce, fingerprint, event_id, tier_id, amount, asset, network)
           VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8) ON CONFLICT (payer, nonce) DO NOTHING RETURNING payer`,
          [
            authorization.from,
            authorization.nonce,
            fingerprint,
            event.event_id,
            tierId,
            authorization.value,
            authorization.asset,
            requirements.network,
          ],
        );
        if (claimed.length === 0) {
          const [earlier] = await queryRows<{
            fingerprint: string;
            ticket_id: string | null;
            transaction: string | null;
          }>(
            manager,
            'SELECT fingerprint, ticket_id, transaction FROM ticketing.payments WHERE payer = $1 AND nonce = $2',
            [authorization.from, authorization.nonce],
          );
          if (earlier?.fingerprint === fingerprint && earlier.ticket_id && earlier.transaction) {
            throw new AlreadyPaid(earlier.ticket_id, earlier.transaction);
          }
          throw new DomainError(
            'payment.nonce_reused',
            'This payment nonce was already used for another payment',
          );
        }
        const ticket = await insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: authorization.value,
          asset: authorization.asset,
          status: 'active',
        });
        const view = toTicket(ticket);
        await this.changes.announce(manager, [
          { type: TicketTopics.issued, subject: view.eventId, data: view },
        ]);
        // The rows every buyer of this event shares (the tier, the event total, the host's
        // balance) are taken last, so that each purchase holds them for its final statements only.
        let debit;
        try {
          [debit] = await this.ledger.transfer(manager, {
            type: 'EVENT_TICKET',
            from: caller,
            to: event.host_id,
            amount: authorization.value,
            asset: authorization.asset,
            eventId: event.event_id,
            ticketId: ticket.id,
            requireFunds: true,
            beforeCredit: () => takeSeat(manager, event.event_id, tierId),
          });
        } catch (error) {
          if (error instanceof DomainError && error.code === 'payment.insufficient_funds') {
            throw paymentRequired('payment.insufficient_funds', error.message, 'insufficient_funds', accepts);
          }
          throw error;
        }
        await queryRows(
          manager,
          'UPDATE ticketing.payments SET ticket_id = $3, transaction = $4 WHERE payer = $1 AND nonce = $2',
          [authorization.from, authorization.nonce, ticket.id, debit.id],
        );
        return { ticket: view, created: true, settlement: this.settlement(debit.id, caller) };
      });
    } catch (error) {
      if (error instanceof AlreadyPaid) {
        const [row] = await queryRows<TicketRow>(
          this.dataSource,
          `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE id = $1`,
          [error.ticketId],
        );
        return {
          ticket: toTicket(row!),
          created: false,
          settlement: this.settlement(error.transaction, caller),
        };
      }
      if (error instanceof AlreadyHolding) return this.existing(event.event_id, caller);
      throw error;
    }
  }

  /**
   * Any x402 facilitator over HTTP: the seat is reserved (a pending ticket) before /settle
   * and released if settlement fails; no transaction is open while the facilitator works.
   */
  private async payThroughFacilitator(
    event: EventRow,
    caller: string,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    accepts: PaymentRequirements[],
  ): Promise<RsvpReply> {
    const facilitator = this.facilitator;
    if (!facilitator) throw new Error('X402_FACILITATOR=http needs X402_FACILITATOR_URL');
    const verified = await facilitator.verify(payload, requirements);
    if (!verified.isValid) {
      throw paymentRequired(
        'payment.invalid',
        `The facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}`,
        verified.invalidReason ?? 'invalid_payment',
        accepts,
      );
    }
    const tierId = requirements.extra.tierId;
    let pending: TicketRow;
    try {
      pending = await this.changes.run(async (manager) => {
        await takeSeat(manager, event.event_id, tierId);
        return insertTicket(manager, {
          eventId: event.event_id,
          tierId,
          holderId: caller,
          price: requirements.maxAmountRequired,
          asset: requirements.asset,
          status: 'pending',
        });
      });
    } catch (error) {
      if (error instanceof AlreadyHolding) return this.existing(event.event_id, caller);
      throw error;
    }
    const settled = await facilitator.settle(payload, requirements);
    if (!settled.success) {
      await this.changes.run(async (manager) => {
        await queryRows(
          manager,
          `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now() WHERE id = $1`,
          [pending.id],
        );
        await releaseSeat(manager, event.event_id, tierId);
      });
      throw paymentRequired(
        'payment.invalid',
        `Settlement failed: ${settled.errorReason ?? 'unknown reason'}`,
        settled.errorReason ?? 'settlement_failed',
        accepts,
      );
    }
    const ticket = await this.changes.run(async (manager) => {
      const [row] = await queryRows<TicketRow>(
        manager,
        `UPDATE ticketing.tickets SET status = 'active' WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
        [pending.id],
      );
      const view = toTicket(row!);
      await this.changes.announce(manager, [
        { type: TicketTopics.issued, subject: view.eventId, data: view },
      ]);
      return view;
    });
    return {
      ticket,
      created: true,
      settlement: {
        success: true,
        transaction: settled.transaction,
        network: settled.network,
        payer: settled.payer ?? caller,
      },
    };
  }

  private settlement(transaction: string, payer: string): SettlementView {
    return { success: true, transaction, network: this.settings.network, payer };
  }

  private async existing(eventId: string, holder: string): Promise<RsvpReply> {
    const held = await this.activeTicket(this.dataSource.manager, eventId, holder);
    if (!held) throw new Error('expected a live ticket after a unique violation');
    return { ticket: toTicket(held), created: false, settlement: null };
  }

  private async availableTiers(event: EventRow): Promise<Set<string>> {
    const rows = await queryRows<{ tier_id: string }>(
      this.dataSource,
      `SELECT i.tier_id FROM ticketing.inventory i JOIN ticketing.events e USING (event_id)
       WHERE i.event_id = $1 AND i.sold < i.capacity AND e.sold < e.capacity`,
      [event.event_id],
    );
    return new Set(rows.map((row) => row.tier_id));
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async activeTicket(
    manager: EntityManager,
    eventId: string,
    holder: string,
    lock = false,
  ): Promise<TicketRow | undefined> {
    if (!isUuid(eventId)) return undefined;
    const [row] = await queryRows<TicketRow>(
      manager,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets
       WHERE event_id = $1 AND holder_id = $2 AND status = 'active' ${lock ? 'FOR UPDATE' : ''}`,
      [eventId, holder],
    );
    return row;
  }

  private async page(
    where: string,
    params: unknown[],
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<TicketView>> {
    const after = cursor ? TICKET_CURSOR.decode(cursor) : null;
    const rows = await queryRows<TicketRow>(
      this.dataSource,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE ${where}
       ${after ? `AND (created_at, id) > ($${params.length + 1}::timestamptz, $${params.length + 2}::uuid)` : ''}
       ORDER BY created_at, id LIMIT ${limit + 1}`,
      after ? [...params, ...after] : params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toTicket),
      nextCursor:
        rows.length > limit && last ? TICKET_CURSOR.encode([last.created_at.toISOString(), last.id]) : null,
    };
  }
}

function tierOfPayload(payload: PaymentPayload): string | undefined {
  const authorization = (payload.payload as { authorization?: { resource?: unknown } }).authorization;
  return typeof authorization?.resource === 'string' ? tierOfResource(authorization.resource) : undefined;
}

/**
 * A 402 (or 409) whose body also carries the x402 v1 fields, so x402 clients can pay again. With
 * no tier left to buy there is no way to pay: that is 409 `capacity.sold_out`, whatever was sent.
 */
function paymentRequired(
  code: 'payment.required' | 'payment.invalid' | 'payment.insufficient_funds',
  detail: string,
  reason: string,
  accepts: PaymentRequirements[],
): DomainError {
  if (accepts.length === 0) return new DomainError('capacity.sold_out', 'No seat is left in this event');
  return new DomainError(code, detail, undefined, { x402: paymentRequiredBody(reason, accepts) });
}

function asPaymentProblem(error: unknown, accepts: PaymentRequirements[]): DomainError {
  if (error instanceof PaymentError)
    return paymentRequired('payment.invalid', error.message, error.reason, accepts);
  if (error instanceof DomainError) return error;
  throw error;
}

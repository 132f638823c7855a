import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  GENERAL_TIER,
  RequestTopics,
  type AccessRequestView,
  type SignedMeta,
} from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { declined } from '../access/admission.js';
import { runEvent } from '../access/hosted-event.js';
import { tiersOnSale } from '../codes/pricing.js';
import { EVENT_COLUMNS, type EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { requireOnSale } from '../tickets/sale-refusals.js';
import { AlreadyHolding, lockSeats } from '../tickets/seats.js';
import { TakeSeat } from '../tickets/take-seat.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { REQUEST_COLUMNS, toRequest, type RequestRow } from './request-book.js';

/**
 * Requests to come to an event whose access is `approval` (docs/product.md "Who may come"):
 * an RSVP by an agent the event does not admit yet asks (once: again, it answers with the same
 * request); the host or a moderator approves or declines. Approving takes the seat under the
 * event's seat locks, so approvals at once never give more seats than there are: a free event's
 * ticket is issued, a paid event's seat is held as a waitlist offer (WaitlistSeats.hold) that the
 * agent's RSVP buys and that expires as any offer does. A declined request may be approved later;
 * an approved one is final.
 */
@Injectable()
export class RequestChanges {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly events: EventsProjection,
    private readonly seats: WaitlistSeats,
    private readonly takeSeat: TakeSeat,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The event, if the caller runs it (its host or a moderator); else 403 `role.forbidden`. */
  runsEvent(meta: SignedMeta, eventId: string): Promise<EventRow> {
    return runEvent(this.events, meta, eventId, 'decides its requests');
  }

  /**
   * The RSVP of an agent the event does not admit yet: its request, made now or before (a request
   * still open takes the tier named now); 403 `access.declined` once declined.
   */
  async ask(event: EventRow, agentId: string, tierId: string | undefined): Promise<AccessRequestView> {
    // A hidden tier is never asked for: only a code sells it (codes/pricing.ts).
    const tiers = tiersOnSale(event);
    if (tierId === undefined ? event.ticketing.mode === 'tiered' : !tiers.some((t) => t.tierId === tierId))
      throw new DomainError('validation.failed', 'tierId: name the tier you ask for', [
        { field: 'tierId', message: `must be one of ${tiers.map((t) => t.tierId).join(', ')}` },
      ]);
    return this.outbox.run(async (manager) => {
      const [asked] = await queryRows<RequestRow & { inserted: boolean }>(
        manager,
        `INSERT INTO ticketing.requests AS r (event_id, agent_id, tier_id, requested_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (event_id, agent_id) DO UPDATE SET tier_id = EXCLUDED.tier_id WHERE r.status = 'requested'
         RETURNING ${REQUEST_COLUMNS}, (xmax = 0) AS inserted`,
        [event.event_id, agentId, tierId ?? null, this.clock()],
      );
      if (asked) {
        const { inserted, ...row } = asked;
        const request = toRequest(row);
        if (inserted)
          await this.outbox.announce(manager, [
            { type: RequestTopics.requested, subject: request.eventId, data: request },
          ]);
        return request;
      }
      const decided = await this.request(manager, event.event_id, agentId);
      if (decided.status === 'declined') throw declined();
      return toRequest(decided); // approved since the RSVP's read: its next RSVP buys
    });
  }

  async approve(meta: SignedMeta, eventId: string, agentId: string): Promise<AccessRequestView> {
    const event = await this.runsEvent(meta, eventId);
    try {
      return await this.approveOnce(meta, event.event_id, agentId);
    } catch (error) {
      // The agent's own RSVP (as an invitee) took a ticket while this one was issued: approve again.
      if (error instanceof AlreadyHolding) return this.approveOnce(meta, event.event_id, agentId);
      throw error;
    }
  }

  private approveOnce(meta: SignedMeta, eventId: string, agentId: string): Promise<AccessRequestView> {
    return this.outbox.run(async (manager) => {
      await lockSeats(manager, eventId);
      const row = await this.request(manager, eventId, agentId, 'FOR UPDATE');
      if (row.status === 'approved') return toRequest(row);
      const [event] = await queryRows<EventRow>(
        manager,
        `SELECT ${EVENT_COLUMNS} FROM ticketing.events WHERE event_id = $1`,
        [eventId],
      );
      requireOnSale(event!);
      const [holding] = await queryRows(
        manager,
        `SELECT 1 FROM ticketing.tickets WHERE event_id = $1 AND holder_id = $2 AND status <> 'cancelled'`,
        [eventId, agentId],
      );
      const holdExpiresAt = holding ? null : await this.seatFor(manager, event!, row);
      const [approved] = await queryRows<RequestRow>(
        manager,
        `UPDATE ticketing.requests SET status = 'approved', decided_at = $3, decided_by = $4, hold_expires_at = $5
          WHERE event_id = $1 AND agent_id = $2 RETURNING ${REQUEST_COLUMNS}`,
        [eventId, agentId, this.clock(), meta.caller, holdExpiresAt],
      );
      const request = toRequest(approved!);
      await this.outbox.announce(manager, [
        { type: RequestTopics.approved, subject: eventId, data: request },
      ]);
      return request;
    });
  }

  /** The approved agent's seat: a free event's ticket issued (null), or a paid seat held until the date returned. */
  private async seatFor(manager: EntityManager, event: EventRow, row: RequestRow): Promise<Date | null> {
    if (event.ticketing.mode === 'free') {
      await this.takeSeat.freeIn(manager, event, row.agent_id);
      return null;
    }
    const tiers = tiersOnSale(event);
    const tierId = row.tier_id ?? tiers[0]?.tierId ?? GENERAL_TIER;
    if (!tiers.some((tier) => tier.tierId === tierId))
      throw new DomainError('capacity.sold_out', `Tier ${tierId} is no longer sold`);
    return this.seats.hold(
      manager,
      { eventId: event.event_id, offerMinutes: event.offer_minutes },
      tierId,
      row.agent_id,
    );
  }

  async decline(meta: SignedMeta, eventId: string, agentId: string): Promise<AccessRequestView> {
    const event = await this.runsEvent(meta, eventId);
    return this.outbox.run(async (manager) => {
      const [row] = await queryRows<RequestRow>(
        manager,
        `UPDATE ticketing.requests SET status = 'declined', decided_at = $3, decided_by = $4
          WHERE event_id = $1 AND agent_id = $2 AND status = 'requested' RETURNING ${REQUEST_COLUMNS}`,
        [event.event_id, agentId, this.clock(), meta.caller],
      );
      if (row) {
        const request = toRequest(row);
        await this.outbox.announce(manager, [
          { type: RequestTopics.declined, subject: request.eventId, data: request },
        ]);
        return request;
      }
      const decided = await this.request(manager, event.event_id, agentId);
      if (decided.status === 'approved')
        throw new DomainError('request.approved', 'This request was approved already: it cannot be declined');
      return toRequest(decided);
    });
  }

  private async request(
    manager: EntityManager,
    eventId: string,
    agentId: string,
    lock = '',
  ): Promise<RequestRow> {
    const [row] = await queryRows<RequestRow>(
      manager,
      `SELECT ${REQUEST_COLUMNS} FROM ticketing.requests WHERE event_id = $1 AND agent_id = $2 ${lock}`,
      [eventId, agentId],
    );
    if (!row) throw new DomainError('request.not_found', 'This agent has not asked to come to this event');
    return row;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, WaitlistTopics, type WaitlistStatus } from '@townhall/contracts';
import { type Announcement, CLOCK, type Clock, OutboxWriter, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { admittedSql } from '../access/admission.js';
import { takeSeat, WAITLIST_ENTRY, type WaitlistEntryRow } from '../db/functions.js';
import { seatProblem } from '../tickets/sale-refusals.js';
import { insertTicket, releaseSeat } from '../tickets/seats.js';
import { toTicket } from '../tickets/ticket-row.js';

/** The line's next agent, with what its tier costs and how long an offer of it holds. */
interface NextInLine {
  id: string;
  tier_id: string;
  agent_id: string;
  price: string;
  offer_minutes: number;
}

/**
 * Seats moving between the sale and the waitlist (docs/product.md "Waitlist"), always inside the
 * transaction that frees or adds them, after `lockSeats` (tickets/seats.ts) locked the event's
 * tiers, so every freed seat is handed out exactly once and a join never misses one:
 * - a free tier's seat becomes the next agent's ticket at once (`accepted`);
 * - a paid tier's seat is taken for the next agent as an offer (`offered` until
 *   `offerExpiresAt`): the counters count it as sold, so nobody else can buy it, and that agent's
 *   RSVP accepts it instead of taking a seat (ticketing.take_seat_for, for every payment).
 * The next agent is the earliest to join among the tiers that have a seat now (and the event
 * too), of those the event admits (an invite-only event passes over the agents it has not invited,
 * who keep their place). Nothing is handed out unless the event is on sale.
 */
@Injectable()
export class WaitlistSeats {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A seat of `tierId` given back (a free ticket, a voided payment, an offer expired or left): the line first, else the sale. */
  async seatFreed(manager: EntityManager, eventId: string, tierId: string): Promise<void> {
    await releaseSeat(manager, eventId, tierId);
    await this.fill(manager, eventId);
  }

  /** Hands every seat the line can take now to it, in order of joining; returns how many. */
  async fill(manager: EntityManager, eventId: string): Promise<number> {
    // An agent of the line who came to hold a ticket meanwhile (of another tier) has no seat to wait for.
    await this.close(
      manager,
      `w.event_id = $1 AND w.status = 'waiting'
         AND EXISTS (SELECT 1 FROM ticketing.live_ticket(w.event_id, w.agent_id))`,
      [eventId],
      'left',
    );
    const now = this.clock();
    for (let given = 0; ; given += 1) {
      const [next] = await queryRows<NextInLine>(
        manager,
        `SELECT w.id, w.tier_id, w.agent_id, i.price::text AS price, e.offer_minutes
           FROM ticketing.waitlist w
           JOIN ticketing.inventory i ON i.event_id = w.event_id AND i.tier_id = w.tier_id
           JOIN ticketing.events e ON e.event_id = w.event_id
          WHERE w.event_id = $1 AND w.status = 'waiting'
            AND ticketing.seats_left(i, e) > 0 AND ticketing.on_sale(e.status)
            AND ${admittedSql('e', 'w.agent_id')}
          ORDER BY w.seq LIMIT 1
          FOR UPDATE OF w`,
        [eventId],
      );
      if (!next) return given;
      const seat = await takeSeat(manager, { eventId, tierId: next.tier_id });
      if (seat.outcome === 'refused') throw seatProblem(seat, next.tier_id); // read as free under the locks
      if (next.price === '0') await this.issue(manager, eventId, next, now);
      else await this.offer(manager, next, now);
    }
  }

  /**
   * A seat of `tierId` held for `agentId` as an offer, outside the line: what approving a paid
   * request gives (requests/request-changes.ts, which announces it). Accepted or expired, it is
   * announced as any offer. An offer the agent holds already is the answer;
   * an entry it had waiting in the line is `left` (the offer replaces it). Returns the offer's end;
   * refuses as ticketing.take_seat does.
   */
  async hold(
    manager: EntityManager,
    event: { eventId: string; offerMinutes: number },
    tierId: string,
    agentId: string,
  ): Promise<Date> {
    const [live] = await queryRows<{ status: WaitlistStatus; offer_expires_at: Date | null }>(
      manager,
      `SELECT status, offer_expires_at FROM ticketing.waitlist
        WHERE event_id = $1 AND agent_id = $2 AND status IN ('waiting', 'offered') FOR UPDATE`,
      [event.eventId, agentId],
    );
    if (live?.status === 'offered') return live.offer_expires_at!;
    const seat = await takeSeat(manager, { eventId: event.eventId, tierId });
    if (seat.outcome === 'refused') throw seatProblem(seat, tierId);
    if (live) {
      await this.close(
        manager,
        `w.event_id = $1 AND w.agent_id = $2 AND w.status = 'waiting'`,
        [event.eventId, agentId],
        'left',
      );
    }
    const now = this.clock();
    const [offer] = await queryRows<{ offer_expires_at: Date }>(
      manager,
      `INSERT INTO ticketing.waitlist (event_id, tier_id, agent_id, status, offer_expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'offered', $4::timestamptz + make_interval(mins => $5), $4, $4)
       RETURNING offer_expires_at`,
      [event.eventId, tierId, agentId, now, event.offerMinutes],
    );
    // Announced by the approval (townhall.request.approved, its `holdExpiresAt`): the agent did not wait in line.
    return offer!.offer_expires_at;
  }

  /**
   * Ends the line of an event that no longer sells (ended or cancelled): every entry still waiting
   * or offered is `expired`. The seats of offers stay counted: nothing is sold any more.
   */
  async closeLine(manager: EntityManager, eventId: string): Promise<void> {
    await this.close(manager, `w.event_id = $1 AND w.status IN ('waiting', 'offered')`, [eventId], 'expired');
  }

  /** The entries `where` selects move to `status`, each announced. */
  private async close(
    manager: EntityManager,
    where: string,
    params: unknown[],
    status: Extract<WaitlistStatus, 'left' | 'expired'>,
  ): Promise<void> {
    const closed = await queryRows<{ id: string }>(
      manager,
      `UPDATE ticketing.waitlist w SET status = $${params.length + 1}, updated_at = $${params.length + 2}
        WHERE ${where} RETURNING w.id`,
      [...params, status, this.clock()],
    );
    await this.announce(
      manager,
      closed.map((row) => row.id),
      status === 'left' ? WaitlistTopics.left : WaitlistTopics.expired,
    );
  }

  /** A free seat: the agent's ticket, issued at once. */
  private async issue(manager: EntityManager, eventId: string, next: NextInLine, now: Date): Promise<void> {
    const ticket = toTicket(
      await insertTicket(manager, {
        eventId,
        tierId: next.tier_id,
        holderId: next.agent_id,
        price: '0',
        asset: null,
        status: 'active',
      }),
    );
    await queryRows(
      manager,
      `UPDATE ticketing.waitlist SET status = 'accepted', updated_at = $2 WHERE id = $1`,
      [next.id, now],
    );
    await this.outbox.announce(manager, [{ type: TicketTopics.issued, subject: eventId, data: ticket }]);
    await this.announce(manager, [next.id], WaitlistTopics.accepted);
  }

  /** A paid seat: held for the agent for the event's offerMinutes. */
  private async offer(manager: EntityManager, next: NextInLine, now: Date): Promise<void> {
    await queryRows(
      manager,
      `UPDATE ticketing.waitlist SET status = 'offered', updated_at = $2,
              offer_expires_at = $2::timestamptz + make_interval(mins => $3)
        WHERE id = $1`,
      [next.id, now, next.offer_minutes],
    );
    await this.announce(manager, [next.id], WaitlistTopics.offered);
  }

  /** Announces each entry as it is now (read in this transaction). */
  async announce(manager: EntityManager, ids: string[], type: string): Promise<void> {
    if (ids.length === 0) return;
    const rows = await queryRows<WaitlistEntryRow>(
      manager,
      `SELECT ${WAITLIST_ENTRY} FROM ticketing.waitlist w WHERE w.id = ANY($1::uuid[]) ORDER BY w.seq`,
      [ids],
    );
    const events: Announcement[] = rows.map(({ entry }) => ({ type, subject: entry.eventId, data: entry }));
    await this.outbox.announce(manager, events);
  }
}

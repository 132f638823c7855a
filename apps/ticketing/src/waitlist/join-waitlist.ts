import { Inject, Injectable } from '@nestjs/common';
import { DomainError, WaitlistTopics, type SignedMeta, type WaitlistJoinReply } from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { admittedSql, notAdmitted } from '../access/admission.js';
import { tiersOnSale } from '../codes/pricing.js';
import type { EventRow, TierOffer } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { requireOnSale } from '../tickets/sale-refusals.js';
import { TicketBook } from '../tickets/ticket-book.js';
import { WaitlistBook } from './waitlist-book.js';

/**
 * Joining the line of a sold-out tier (docs/product.md "Waitlist"): only while that tier or the
 * event has no seat (409 `waitlist.seats_available`, also to an agent who holds a ticket: the RSVP
 * answers with it), once per event (again: 200 with the entry in line). The tier's seat row is
 * locked while the seats are checked and the entry written, so a seat freed meanwhile is handed
 * out after this entry is in line (or this join sees the seat), and joins of a tier take their
 * place in line in the order they commit.
 */
@Injectable()
export class JoinWaitlist {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly events: EventsProjection,
    private readonly tickets: TicketBook,
    private readonly book: WaitlistBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async join(meta: SignedMeta, eventId: string, tierId: string | undefined): Promise<WaitlistJoinReply> {
    const event = await this.events.ensure(eventId, meta.caller, meta.requestId);
    const tier = tierOf(event, tierId);
    const live = await this.book.liveEntry(event.event_id, meta.caller);
    if (live) return { entry: live, created: false };
    requireOnSale(event);
    if (!(await this.admits(event.event_id, meta.caller))) throw notAdmitted(event);
    if (await this.tickets.liveTicket(event.event_id, meta.caller))
      throw new DomainError(
        'waitlist.seats_available',
        'You hold a ticket for this event: there is no seat to wait for (an RSVP answers with your ticket)',
      );
    const joined = await this.outbox.run(async (manager) => {
      const [seats] = await queryRows<{
        seats_left: number;
        status: EventRow['status'];
        on_sale: boolean;
      }>(
        manager,
        `SELECT ticketing.seats_left(i, e) AS seats_left, e.status, ticketing.on_sale(e.status) AS on_sale
           FROM ticketing.inventory i JOIN ticketing.events e USING (event_id)
          WHERE i.event_id = $1 AND i.tier_id = $2
          FOR NO KEY UPDATE OF i`,
        [event.event_id, tier.tierId],
      );
      if (!seats) throw noSuchTier(event);
      requireOnSale(seats);
      if (seats.seats_left > 0)
        throw new DomainError(
          'waitlist.seats_available',
          `Tier ${tier.tierId} has a seat left: RSVP instead of waiting`,
        );
      const now = this.clock();
      const [inserted] = await queryRows<{ id: string }>(
        manager,
        `INSERT INTO ticketing.waitlist (event_id, tier_id, agent_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (event_id, agent_id) WHERE status IN ('waiting', 'offered') DO NOTHING
         RETURNING id`,
        [event.event_id, tier.tierId, meta.caller, now],
      );
      // The same agent's other join came first: its entry is the answer.
      if (!inserted) return undefined;
      const entry = await this.book.byId(manager, inserted.id);
      await this.outbox.announce(manager, [
        { type: WaitlistTopics.joined, subject: entry.eventId, data: entry },
      ]);
      return entry;
    });
    if (joined) return { entry: joined, created: true };
    const entry = await this.book.liveEntry(event.event_id, meta.caller);
    if (!entry) throw new Error('expected a live waitlist entry after a conflicting join');
    return { entry, created: false };
  }

  /** Whether the event admits the agent (invites/admission.ts): only the admitted wait in its line. */
  private async admits(eventId: string, agentId: string): Promise<boolean> {
    const [row] = await queryRows<{ admitted: boolean }>(
      this.dataSource,
      `SELECT ${admittedSql('e', '$2')} AS admitted FROM ticketing.events e WHERE e.event_id = $1`,
      [eventId, agentId],
    );
    return row?.admitted ?? false;
  }
}

/** The tier to wait for: the one named, or the only one (tiered events name it, as for an RSVP). */
function tierOf(event: EventRow, tierId: string | undefined): TierOffer {
  // A hidden tier has no line: only a code sells it (codes/pricing.ts).
  const tiers = tiersOnSale(event);
  const wanted = tierId ?? (event.ticketing.mode === 'tiered' ? undefined : tiers[0]?.tierId);
  const tier = tiers.find((offer) => offer.tierId === wanted);
  if (!tier) throw noSuchTier(event);
  return tier;
}

function noSuchTier(event: EventRow): DomainError {
  const tiers = tiersOnSale(event);
  return new DomainError('validation.failed', 'tierId: name one of the event tiers', [
    { field: 'tierId', message: `must be one of ${tiers.map((t) => t.tierId).join(', ')}` },
  ]);
}

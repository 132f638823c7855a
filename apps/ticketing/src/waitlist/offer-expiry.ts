import { Inject, Injectable } from '@nestjs/common';
import { WaitlistTopics } from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, Periodic, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { lockSeats } from '../tickets/seats.js';
import type { TicketingConfig } from '../config.js';
import { WaitlistSeats } from './waitlist-seats.js';

/** How many expired offers one pass takes on. */
const EXPIRY_BATCH = 100;

/**
 * Offers that ran out (`offerExpiresAt` passed on the service's clock) become `expired`, and their
 * seat goes to the next agent in line or back on sale. Each offer in its own transaction, by a
 * conditional UPDATE of an `offered` row under the event's seat locks: safe on every replica at
 * once, and against the agent's RSVP accepting the offer at the same moment (one of them wins).
 */
@Injectable()
export class OfferExpiry {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly seats: WaitlistSeats,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One pass, every WAITLIST_SWEEP_INTERVAL_MS on each replica; returns how many offers it expired. */
  @Periodic<TicketingConfig>({ every: 'WAITLIST_SWEEP_INTERVAL_MS', runAtStart: true })
  async expireDue(): Promise<number> {
    const due = await queryRows<{ id: string; event_id: string }>(
      this.dataSource,
      `SELECT id, event_id FROM ticketing.waitlist
        WHERE status = 'offered' AND offer_expires_at <= $1 ORDER BY offer_expires_at LIMIT $2`,
      [this.clock(), EXPIRY_BATCH],
    );
    let expired = 0;
    for (const offer of due) {
      const done = await this.outbox.run(async (manager) => {
        await lockSeats(manager, offer.event_id);
        const now = this.clock();
        const [row] = await queryRows<{ tier_id: string }>(
          manager,
          `UPDATE ticketing.waitlist SET status = 'expired', updated_at = $2
            WHERE id = $1 AND status = 'offered' AND offer_expires_at <= $2 RETURNING tier_id`,
          [offer.id, now],
        );
        if (!row) return false;
        await this.seats.announce(manager, [offer.id], WaitlistTopics.expired);
        await this.seats.seatFreed(manager, offer.event_id, row.tier_id);
        return true;
      });
      if (done) expired += 1;
    }
    return expired;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isUuid, WaitlistTopics, type WaitlistEntryView } from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, queryRows } from '@townhall/platform/service';
import { lockSeats } from '../tickets/seats.js';
import { WaitlistBook } from './waitlist-book.js';
import { WaitlistSeats } from './waitlist-seats.js';

/** An agent leaves the line (`left`); a seat held for it as an offer goes to the next agent, or back on sale. */
@Injectable()
export class LeaveWaitlist {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: WaitlistBook,
    private readonly seats: WaitlistSeats,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  leave(caller: string, eventId: string): Promise<WaitlistEntryView> {
    const notInLine = () =>
      new DomainError('waitlist.not_found', 'You are not in the waitlist of this event');
    if (!isUuid(eventId)) return Promise.reject(notInLine());
    return this.outbox.run(async (manager) => {
      const live = await this.book.liveEntry(eventId, caller, manager);
      if (!live) throw notInLine();
      await lockSeats(manager, eventId);
      // Read again under the seats' lock: an offer may have expired or been accepted meanwhile.
      const [entry] = await queryRows<{ status: string; tier_id: string }>(
        manager,
        `SELECT status, tier_id FROM ticketing.waitlist WHERE id = $1 AND status IN ('waiting', 'offered') FOR UPDATE`,
        [live.id],
      );
      if (!entry) throw notInLine();
      await queryRows(
        manager,
        `UPDATE ticketing.waitlist SET status = 'left', updated_at = $2 WHERE id = $1`,
        [live.id, this.clock()],
      );
      const left = await this.book.byId(manager, live.id);
      await this.outbox.announce(manager, [{ type: WaitlistTopics.left, subject: left.eventId, data: left }]);
      if (entry.status === 'offered') await this.seats.seatFreed(manager, eventId, entry.tier_id);
      return left;
    });
  }
}

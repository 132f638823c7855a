import { Inject, Injectable } from '@nestjs/common';
import type { SignedMeta, TicketingReport } from '@townhall/contracts';
import { CLOCK, type Clock, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { runEvent } from '../access/hosted-event.js';
import { tiersOf, type EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { holdersOf } from './holders.js';
import { moneyOf } from './money.js';
import { ticketsOverTime } from './over-time.js';

/**
 * Ticketing's part of an event's report (docs/product.md "The report"; the gateway adds
 * engagement's): registrations, revenue, refunds, codes, and each holder's line for the CSV. Read
 * by the event's host or a moderator, as they run the event (403 `role.forbidden` for anyone
 * else), and at any time, live or after the event, as of the service's clock. Every part is read
 * in one REPEATABLE READ transaction: one snapshot, so a sale made meanwhile is in all the parts
 * or in none (the revenue, the registrations and the holders always agree).
 */
@Injectable()
export class SalesBook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async read(meta: SignedMeta, eventId: string): Promise<TicketingReport> {
    const event = await runEvent(this.events, meta, eventId, 'reads its report');
    return this.report(event);
  }

  report(event: EventRow): Promise<TicketingReport> {
    const now = this.clock();
    return this.dataSource.transaction('REPEATABLE READ', async (manager: EntityManager) => {
      const byTier = await liveByTier(manager, event);
      const overTime = await ticketsOverTime(manager, event.event_id, now);
      const money = await moneyOf(manager, event.event_id);
      const codes = await queryRows<{ code: string; uses: number }>(
        manager,
        `SELECT code, uses FROM ticketing.codes WHERE event_id = $1 ORDER BY created_at, code_key`,
        [event.event_id],
      );
      const holders = await holdersOf(manager, event.event_id);
      return {
        sales: {
          registrations: {
            total: Object.values(byTier).reduce((sum, live) => sum + live, 0),
            byTier,
            overTime,
          },
          ...money,
          codes,
        },
        holders,
      };
    });
  }
}

/**
 * The live tickets (active, or pending while their payment settles) per tier: every tier of the
 * event, hidden ones too, 0 when it has none; and a tier the event no longer sells while tickets
 * of it are live, so the tiers always add up to the total.
 */
async function liveByTier(manager: EntityManager, event: EventRow): Promise<Record<string, number>> {
  const rows = await queryRows<{ tier_id: string; live: number }>(
    manager,
    `SELECT tier_id, count(*)::int AS live FROM ticketing.tickets
      WHERE event_id = $1 AND status IN ('active', 'pending') GROUP BY tier_id ORDER BY tier_id`,
    [event.event_id],
  );
  const byTier: Record<string, number> = {};
  for (const tier of tiersOf(event.ticketing, event.capacity)) byTier[tier.tierId] = 0;
  for (const row of rows) byTier[row.tier_id] = row.live;
  return byTier;
}

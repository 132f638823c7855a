import type { HolderSales } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { REFUNDS_OF_EVENT } from './money.js';

/**
 * One line per ticket holder, oldest ticket first: every agent holding a live ticket (active or
 * pending), and every agent whose cancelled ticket was refunded (or is owed a refund), with the
 * newest such ticket when it had several. A ticket cancelled without a refund (a free ticket given
 * back, a payment voided before its ticket was issued) holds nothing and owed nothing: its agent
 * is not a holder unless it holds another. `paid` is the ticket's price, what was paid with its
 * code; `refunded` what REFUNDS_OF_EVENT gives back for that ticket, '0' if nothing.
 */
export async function holdersOf(manager: EntityManager, eventId: string): Promise<HolderSales[]> {
  const rows = await queryRows<HolderSales & { created_at: Date }>(
    manager,
    `WITH ${REFUNDS_OF_EVENT},
     by_ticket AS (SELECT ticket_id, sum(amount) AS amount FROM refunded GROUP BY ticket_id),
     lines AS (
       SELECT DISTINCT ON (t.holder_id) t.holder_id AS "agentId", t.tier_id AS "tierId", t.code,
              t.price::text AS paid, t.asset, coalesce(f.amount, 0)::text AS refunded, t.created_at, t.id
         FROM ticketing.tickets t LEFT JOIN by_ticket f ON f.ticket_id = t.id
        WHERE t.event_id = $1 AND (t.status IN ('active', 'pending') OR f.ticket_id IS NOT NULL)
        ORDER BY t.holder_id, t.created_at DESC, t.id DESC
     )
     SELECT "agentId", "tierId", code, paid, asset, refunded, created_at FROM lines ORDER BY created_at, id`,
    [eventId],
  );
  return rows.map(({ agentId, tierId, code, paid, asset, refunded }) => ({
    agentId,
    tierId,
    code,
    paid,
    asset,
    refunded,
  }));
}

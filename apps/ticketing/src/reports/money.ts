import type { SalesReport } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/**
 * Every refund of the event ($1), one row per refunded ticket: `ticket_id, amount, asset, network`.
 * The ledger's first (an EVENT_TICKET_REFUND entry with amount > 0 is the holder's credit: a
 * ticket paid on the ledger refunded when its event was cancelled, network null, or an on-chain
 * refund the host paid, network set, that PayRefund recorded there), then the on-chain refunds of
 * ticketing.refunds that have no such entry yet (`owed`, or `paying` until the chain answers), so
 * a refund paid on chain counts once, from the ledger, whatever its row says.
 */
export const REFUNDS_OF_EVENT = `
  refunded AS (
    SELECT l.ticket_id, l.amount, l.asset, l.network FROM ticketing.ledger_entries l
     WHERE l.event_id = $1 AND l.type = 'EVENT_TICKET_REFUND' AND l.amount > 0
    UNION ALL
    SELECT r.ticket_id, r.amount, r.asset, r.network FROM ticketing.refunds r
     WHERE r.event_id = $1 AND NOT EXISTS (
       SELECT 1 FROM ticketing.ledger_entries l
        WHERE l.event_id = r.event_id AND l.type = 'EVENT_TICKET_REFUND' AND l.amount > 0
          AND l.ticket_id = r.ticket_id)
  )`;

type Money = SalesReport['revenue'][number];

/**
 * What the event's tickets brought in, and what went or goes back, per asset and network (null
 * on the ledger), as integer strings; only the groups that have some.
 * - Revenue is the ledger's: the host's credits (EVENT_TICKET, amount > 0) for the event, those of
 *   tickets paid on the ledger and of tickets paid on chain alike (a settled on-chain payment
 *   writes its entries with its network), so the report always equals the ledger, before refunds.
 * - Refunds: how many and how much, by REFUNDS_OF_EVENT.
 */
export async function moneyOf(
  manager: EntityManager,
  eventId: string,
): Promise<Pick<SalesReport, 'revenue' | 'refunds'>> {
  const rows = await queryRows<Money & { part: 'revenue' | 'refunds'; count: number }>(
    manager,
    `WITH ${REFUNDS_OF_EVENT}
     SELECT 'revenue' AS part, asset, network, sum(amount)::text AS amount, count(*)::int AS count
       FROM ticketing.ledger_entries
      WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount > 0
      GROUP BY asset, network
     UNION ALL
     SELECT 'refunds', asset, network, sum(amount)::text, count(*)::int FROM refunded GROUP BY asset, network
     ORDER BY part, asset, network NULLS FIRST`,
    [eventId],
  );
  const money = ({ asset, network, amount }: Money): Money => ({ asset, network, amount });
  const refunds = rows.filter((row) => row.part === 'refunds');
  return {
    revenue: rows.filter((row) => row.part === 'revenue').map(money),
    refunds: {
      count: refunds.reduce((sum, row) => sum + row.count, 0),
      amounts: refunds.map(money),
    },
  };
}

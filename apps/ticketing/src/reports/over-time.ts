import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/** The intervals `overTime` may count in, seconds: 1 min, 5 min, 15 min, 1 h, 6 h, 1 day, 7 days. */
export const OVER_TIME_INTERVALS_S = [60, 300, 900, 3_600, 21_600, 86_400, 604_800] as const;
/** The most points `overTime` has (the contract's "at most 100 points"). */
export const OVER_TIME_POINTS = 100;

/**
 * Tickets issued so far at the end of each interval, from the event's first ticket to `now` (the
 * service's clock; a ticket written later than it moves the end to that ticket). Every ticket
 * the event ever issued counts, whatever its status now: a cancelled or given-back ticket was
 * still sold at the time, so the curve never goes down, and its last point is every ticket ever
 * issued. The interval is the smallest of OVER_TIME_INTERVALS_S that gives at most
 * OVER_TIME_POINTS points (an event sold over more than 700 days counts in as many weeks as it
 * takes); point k counts the tickets created before first + k intervals, and the last point is
 * at the end (not past it). No ticket, no point.
 *
 * One statement: the tickets binned by interval, then summed along generate_series, so a long
 * sale costs one read of the event's tickets (tickets_by_event), not one per point.
 */
const OVER_TIME_SQL = `
  WITH issued AS (
    SELECT created_at FROM ticketing.tickets WHERE event_id = $1
  ), span AS (
    SELECT min(created_at) AS first, greatest(max(created_at), $2::timestamptz) AS last FROM issued
  ), step AS (
    SELECT first, last, extract(epoch FROM last - first) AS span_s,
      coalesce(
        (SELECT min(s) FROM unnest($3::int[]) AS ladder(s) WHERE extract(epoch FROM last - first) < s * $4::int),
        (floor(extract(epoch FROM last - first) / ($4::int * widest.s)) + 1) * widest.s
      )::bigint AS step_s
    FROM span, (SELECT max(s) AS s FROM unnest($3::int[]) AS ladder(s)) AS widest
  ), bins AS (
    SELECT floor(extract(epoch FROM i.created_at - p.first) / p.step_s)::int + 1 AS k, count(*) AS n
      FROM issued i, step p GROUP BY 1
  )
  SELECT least(p.first + (k * p.step_s) * interval '1 second', p.last) AS at,
         (sum(coalesce(b.n, 0)) OVER (ORDER BY k))::int AS total
    FROM step p
    CROSS JOIN generate_series(1, floor(p.span_s / p.step_s)::int + 1) AS k
    LEFT JOIN bins b USING (k)
   ORDER BY k`;

export async function ticketsOverTime(
  manager: EntityManager,
  eventId: string,
  now: Date,
): Promise<Array<{ at: string; total: number }>> {
  const rows = await queryRows<{ at: Date; total: number }>(manager, OVER_TIME_SQL, [
    eventId,
    now,
    OVER_TIME_INTERVALS_S,
    OVER_TIME_POINTS,
  ]);
  return rows.map((row) => ({ at: row.at.toISOString(), total: row.total }));
}

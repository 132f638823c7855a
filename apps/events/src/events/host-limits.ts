import { DomainError } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/**
 * What one agent may host at once (EVENTS_PER_HOST_LIMIT, SERIES_PER_HOST_LIMIT): keys cost
 * nothing, but each key's live objects are what the listing, the index page and the series
 * expansion spend on, so each is bounded.
 */
export interface HostLimits {
  /** One-off events scheduled or live (a series' occurrences are bounded by `series`). */
  events: number;
  /** Series not ended. */
  series: number;
}

export const DEFAULT_HOST_LIMITS: HostLimits = { events: 50, series: 10 };

/** What each limit counts, in the transaction about to add one more. */
const HELD = {
  events: `SELECT count(*)::int AS held FROM events.events
           WHERE host_id = $1 AND series_id IS NULL AND status IN ('scheduled', 'live')`,
  series: 'SELECT count(*)::int AS held FROM events.series WHERE host_id = $1 AND ended_at IS NULL',
} as const;

/**
 * Refuses (409 `event.limit_reached` / `series.limit_reached`) one more of `kind` for `hostId` when
 * the host already holds `limit`. Run first in the transaction that inserts it: the host's
 * advisory lock, held to its end, makes two creates by one host count one after the other, so
 * two at once cannot both take the last place. Ending or cancelling one frees its place.
 */
export async function requireRoomFor(
  manager: EntityManager,
  kind: keyof HostLimits,
  hostId: string,
  limit: number,
): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`events.host.${kind}:${hostId}`]);
  const [row] = await queryRows<{ held: number }>(manager, HELD[kind], [hostId]);
  if ((row?.held ?? 0) < limit) return;
  if (kind === 'events')
    throw new DomainError(
      'event.limit_reached',
      `You host ${limit} scheduled or live events, as many as allowed; end or cancel one first`,
    );
  throw new DomainError(
    'series.limit_reached',
    `You host ${limit} series that have not ended, as many as allowed; end one first`,
  );
}

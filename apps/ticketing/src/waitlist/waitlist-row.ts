import type { WaitlistEntryView, WaitlistStatus } from '@townhall/contracts';

/** A row of ticketing.waitlist, with its place in the tier's line while waiting. */
export interface WaitlistRow {
  id: string;
  event_id: string;
  tier_id: string;
  agent_id: string;
  status: WaitlistStatus;
  offer_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  position: number | null;
}

/** Read `FROM ticketing.waitlist w`: the place in line counts who joined the tier's line first. */
export const WAITLIST_COLUMNS = `w.id, w.event_id, w.tier_id, w.agent_id, w.status, w.offer_expires_at,
  w.created_at, w.updated_at,
  CASE WHEN w.status = 'waiting' THEN (
    SELECT count(*)::int FROM ticketing.waitlist a
     WHERE a.event_id = w.event_id AND a.status = 'waiting' AND a.tier_id = w.tier_id AND a.seq <= w.seq
  ) END AS position`;

export function toWaitlistEntry(row: WaitlistRow): WaitlistEntryView {
  return {
    id: row.id,
    eventId: row.event_id,
    tierId: row.tier_id,
    agentId: row.agent_id,
    position: row.position,
    status: row.status,
    offerExpiresAt: row.offer_expires_at ? row.offer_expires_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

-- A waitlist entry as the API shows it (WaitlistEntryView), the one definition of that view: every
-- read of an entry selects it (db/functions.ts WAITLIST_ENTRY), and the functions announce it.
-- `position`: its place in its tier's line while waiting (who joined that line first), else null.
CREATE OR REPLACE FUNCTION ticketing.waitlist_entry_json(w ticketing.waitlist) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', w.id, 'eventId', w.event_id, 'tierId', w.tier_id, 'agentId', w.agent_id,
    'position', CASE WHEN w.status = 'waiting' THEN (
      SELECT count(*)::int FROM ticketing.waitlist a
       WHERE a.event_id = w.event_id AND a.status = 'waiting' AND a.tier_id = w.tier_id AND a.seq <= w.seq
    ) END,
    'status', w.status,
    'offerExpiresAt', ticketing.instant_json(w.offer_expires_at),
    'createdAt', ticketing.instant_json(w.created_at),
    'updatedAt', ticketing.instant_json(w.updated_at))
$$;

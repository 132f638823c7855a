-- The end of the event: the stage lock exclusively, so it waits for every write in flight, then
-- the end marked (the first end stands); every write after it sees `ended_at` and is refused.
CREATE OR REPLACE FUNCTION engagement.close_stage(p_event uuid, p_ended_at timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('engagement.stage'), hashtext(p_event::text));
  INSERT INTO engagement.stages AS s (event_id, ended_at) VALUES (p_event, p_ended_at)
  ON CONFLICT (event_id) DO UPDATE SET ended_at = COALESCE(s.ended_at, EXCLUDED.ended_at);
END $$;

-- Holds the event open until the transaction ends: the event's stage lock, shared (every write but
-- a stage post takes it first). False once the event has ended. The one definition of the stage
-- lock's key: (class 'engagement.stage', the event); engagement.close_stage takes it exclusively.
CREATE OR REPLACE FUNCTION engagement.hold_open(p_event uuid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('engagement.stage'), hashtext(p_event::text));
  RETURN NOT EXISTS (
    SELECT 1 FROM engagement.stages WHERE event_id = p_event AND ended_at IS NOT NULL);
END $$;

-- A question in one call (issue [10]): the stage lock and the end, the block, the standing it was
-- authorized on, the per-agent rate, the row in its first state (`p_state`: 'open', or 'pending'
-- under pre-moderation) and its domain event (`p_events`, built by the service). 'submitted', or
-- a refusal, which writes nothing: 'ended', 'blocked', 'stale' (`p_standing`, the text of the
-- engagement.standing row the service authorized the question on, is not the standing now: the
-- service reads it again and decides again; NULL: not compared), 'rate_limited'.
-- Refusals are raised (SQLSTATE TH001, the refusal as the message) when `p_raise_refusals`, as
-- every function's are (db/functions.ts `refusable`); the release before answers them as the
-- function's text, and calls without it during a rollout, so by default they are still returned.
-- The signature before `p_standing`, which the migrations created (the migrate step drops the one
-- it applied itself before a changed signature).
DROP FUNCTION IF EXISTS engagement.submit_question(uuid, uuid, text, text, timestamptz, integer, text, jsonb);
CREATE OR REPLACE FUNCTION engagement.submit_question(
  p_id uuid, p_event uuid, p_author text, p_body text, p_at timestamptz,
  p_per_minute integer, p_state text, p_events jsonb, p_standing text DEFAULT NULL,
  p_raise_refusals boolean DEFAULT false
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_refusal text;
BEGIN
  IF NOT engagement.hold_open(p_event) THEN
    v_refusal := 'ended';
  ELSIF engagement.is_blocked(p_event, p_author) THEN
    v_refusal := 'blocked';
  ELSIF p_standing IS NOT NULL
     AND (SELECT s::text FROM engagement.standing(p_event, p_author) AS s) IS DISTINCT FROM p_standing THEN
    v_refusal := 'stale';
  ELSE
    -- The count and the insert are one step per (event, agent): concurrent submissions
    -- cannot all slip under the limit. The agent's last minute in questions_by_author's order, at
    -- most p_per_minute rows: the plan kept for the session must not read an event's every
    -- question (by event alone, as a plan made when most events had few questions would).
    PERFORM pg_advisory_xact_lock(hashtext('engagement.questions:' || p_event || ':' || p_author));
    IF (SELECT count(*) FROM (
          SELECT FROM engagement.questions
           WHERE event_id = p_event AND author_id = p_author AND created_at > p_at - interval '1 minute'
           ORDER BY event_id, author_id, created_at LIMIT p_per_minute) AS recent) >= p_per_minute THEN
      v_refusal := 'rate_limited';
    END IF;
  END IF;
  IF v_refusal IS NOT NULL THEN
    IF p_raise_refusals THEN
      RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = v_refusal;
    END IF;
    RETURN v_refusal;
  END IF;
  INSERT INTO engagement.questions (id, event_id, author_id, body, state, created_at, updated_at)
  VALUES (p_id, p_event, p_author, p_body, p_state, p_at, p_at);
  PERFORM engagement.announce(p_events);
  RETURN 'submitted';
END $$;

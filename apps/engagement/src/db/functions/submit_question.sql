-- A question in one call (issue [10]): the stage lock and the end, the block, the standing it was
-- authorized on, the per-agent rate, the row in its first state (`p_state`: 'open', or 'pending'
-- under pre-moderation) and its domain event (`p_events`, built by the service). 'submitted', or
-- why not: 'ended', 'blocked', 'stale' (`p_standing`, the text of the engagement.standing row the
-- service authorized the question on, is not the standing now: the service reads it again and
-- decides again; NULL: not compared), 'rate_limited'; a refusal writes nothing.
-- The signature before `p_standing`, which the migrations created.
DROP FUNCTION IF EXISTS engagement.submit_question(uuid, uuid, text, text, timestamptz, integer, text, jsonb);
CREATE OR REPLACE FUNCTION engagement.submit_question(
  p_id uuid, p_event uuid, p_author text, p_body text, p_at timestamptz,
  p_per_minute integer, p_state text, p_events jsonb, p_standing text DEFAULT NULL
) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF NOT engagement.hold_open(p_event) THEN
    RETURN 'ended';
  END IF;
  IF engagement.is_blocked(p_event, p_author) THEN
    RETURN 'blocked';
  END IF;
  IF p_standing IS NOT NULL
     AND (SELECT s::text FROM engagement.standing(p_event, p_author) AS s) IS DISTINCT FROM p_standing THEN
    RETURN 'stale';
  END IF;
  -- The count and the insert are one step per (event, agent): concurrent submissions
  -- cannot all slip under the limit. The agent's last minute in questions_by_author's order, at
  -- most p_per_minute rows: the plan kept for the session must not read an event's every
  -- question (by event alone, as a plan made when most events had few questions would).
  PERFORM pg_advisory_xact_lock(hashtext('engagement.questions:' || p_event || ':' || p_author));
  IF (SELECT count(*) FROM (
        SELECT FROM engagement.questions
         WHERE event_id = p_event AND author_id = p_author AND created_at > p_at - interval '1 minute'
         ORDER BY event_id, author_id, created_at LIMIT p_per_minute) AS recent) >= p_per_minute THEN
    RETURN 'rate_limited';
  END IF;
  INSERT INTO engagement.questions (id, event_id, author_id, body, state, created_at, updated_at)
  VALUES (p_id, p_event, p_author, p_body, p_state, p_at, p_at);
  PERFORM engagement.announce(p_events);
  RETURN 'submitted';
END $$;

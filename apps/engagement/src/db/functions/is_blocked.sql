-- Whether a moderator or the host blocked the agent in the event (a row of engagement.blocks):
-- the one block check, of every write's authorization (access/participants.ts), of
-- engagement.submit_question after the stage lock, and of the public question reads. One
-- SELECT of a STABLE sql function: the planner inlines it into the queries that call it.
CREATE OR REPLACE FUNCTION engagement.is_blocked(p_event uuid, p_agent text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM engagement.blocks b WHERE b.event_id = p_event AND b.agent_id = p_agent)
$$;

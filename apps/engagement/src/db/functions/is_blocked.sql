-- Whether a moderator or the host blocked the agent in the event (a row of engagement.blocks):
-- the one block check, of every write's authorization (access/participants.ts), of
-- engagement.submit_question after the stage lock, of engagement.standing, and of the public
-- question reads. PL/pgSQL, not SQL: a SQL function whose body is a sub-select (EXISTS) is never
-- inlined, and is then parsed and planned again at every call; PL/pgSQL keeps the plan for the
-- session (measured: a question post's submit_question, which asks twice, took 440 us of the
-- database's CPU with both this and announce in SQL, 200 us with both in PL/pgSQL).
CREATE OR REPLACE FUNCTION engagement.is_blocked(p_event uuid, p_agent text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM engagement.blocks b WHERE b.event_id = p_event AND b.agent_id = p_agent);
END $$;

-- An agent's standing in an event as engagement's projections tell it: the event's status and
-- host, the agent's role, whether it holds a live ticket, whether it is blocked, and the event's
-- moderation. The one definition of what Participants reads (access/participants.ts), and of what
-- engagement.submit_question compares with the standing a question was authorized on: a row's
-- text (`s::text`) changes whenever any of its facts does. No row for an event not projected yet.
CREATE OR REPLACE FUNCTION engagement.standing(p_event uuid, p_agent text)
RETURNS TABLE (
  status text, host_id text, role text, holds_ticket boolean, blocked boolean,
  question_moderation text, report_threshold integer
) LANGUAGE sql STABLE AS $$
  SELECT e.status, e.host_id,
    CASE WHEN e.host_id = p_agent THEN 'host' WHEN p_agent = ANY (e.moderators) THEN 'moderator'
         WHEN p_agent = ANY (e.speakers) THEN 'speaker' END,
    EXISTS (SELECT 1 FROM engagement.attendance a
            WHERE a.event_id = e.event_id AND a.agent_id = p_agent AND a.cancelled_at IS NULL),
    engagement.is_blocked(e.event_id, p_agent),
    e.question_moderation, e.report_threshold
  FROM engagement.events e WHERE e.event_id = p_event
$$;

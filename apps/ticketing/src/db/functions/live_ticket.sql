-- The agent's live ticket for the event, if any: active, or pending while its payment settles (it
-- holds the seat). The one definition of "already holds a ticket", the predicate of the unique
-- index tickets_one_live_per_agent, which refuses a second one (23505) to a purchase that raced
-- past this read: the sale's read (tickets/sale-facts.ts) and ticketing.purchase ask it.
-- SQL, STABLE and SETOF: inlined into each query that calls it, a probe of that index.
CREATE OR REPLACE FUNCTION ticketing.live_ticket(p_event uuid, p_agent text) RETURNS SETOF ticketing.tickets
LANGUAGE sql STABLE ROWS 1 AS $$
  SELECT * FROM ticketing.tickets WHERE event_id = p_event AND holder_id = p_agent AND status <> 'cancelled'
$$;

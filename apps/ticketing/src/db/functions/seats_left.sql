-- The seats of tier `i` that can still be sold: the tier's or the event total's, whichever is
-- fewer (a held waitlist offer counts as sold). The one definition of "sold out" (none left) for
-- every read that asks: the sale's read before an RSVP (tickets/sale-facts.ts) and the waitlist
-- handing seats out (waitlist/waitlist-seats.ts); ticketing.take_seat's conditional updates
-- (`sold < capacity`, each row) are the same rule written as the writes that take a seat.
-- SQL and STABLE: inlined into each query that calls it.
CREATE OR REPLACE FUNCTION ticketing.seats_left(i ticketing.inventory, e ticketing.events) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT LEAST(i.capacity - i.sold, e.capacity - e.sold)
$$;

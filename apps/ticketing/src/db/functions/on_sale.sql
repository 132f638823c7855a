-- Whether an event in `p_status` takes RSVPs, waitlist joins and approvals: scheduled or live
-- (docs/product.md "Tickets, payments, ledger"). The one definition of "on sale": take_seat and
-- take_seat_for refuse 'not_on_sale' by it, the waitlist hands seats out by it, and every read of
-- an event selects it (projection/event-row.ts EVENT_COLUMNS), so the service only reads the answer.
-- SQL and IMMUTABLE: inlined into each query that calls it.
CREATE OR REPLACE FUNCTION ticketing.on_sale(p_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_status IN ('scheduled', 'live')
$$;

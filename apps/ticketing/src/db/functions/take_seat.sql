-- The one owner of "take a seat": the tier, then the event total, each a conditional update
-- (`sold < capacity`), always in that order, so that under any concurrency a seat that is not
-- there is never sold (and the check constraints would refuse it if anything tried). A held
-- waitlist offer is a sold seat to these counters. Called by ticketing.take_seat_for and by every
-- TypeScript path that takes a seat (db/functions.ts takeSeat).
-- Refusals (SQLSTATE TH001): 'sold_out', or 'not_on_sale' (ticketing.on_sale) with the event's
-- status in DETAIL.
CREATE OR REPLACE FUNCTION ticketing.take_seat(p_event uuid, p_tier text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_status text;
BEGIN
  UPDATE ticketing.inventory SET sold = sold + 1
   WHERE event_id = p_event AND tier_id = p_tier AND sold < capacity;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'sold_out';
  END IF;
  UPDATE ticketing.events SET sold = sold + 1
   WHERE event_id = p_event AND sold < capacity AND ticketing.on_sale(status);
  IF NOT FOUND THEN
    SELECT status INTO v_status FROM ticketing.events WHERE event_id = p_event;
    IF NOT ticketing.on_sale(v_status) THEN
      RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'not_on_sale', DETAIL = v_status;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'sold_out';
  END IF;
END $$;

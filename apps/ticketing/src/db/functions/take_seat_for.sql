-- The seat of an agent's paid ticket (docs/product.md "Waitlist"): the one its live waitlist offer
-- holds for the tier, the offer then accepted ('offer'), else one taken from the sale by
-- ticketing.take_seat ('sale'). The one definition of "accept the offer or take a seat", for
-- ticketing.purchase (the ledger) and for a payment through a facilitator (db/functions.ts
-- takeSeatFor). The offer's UPDATE is a probe of the small partial unique index (nothing for
-- almost everyone), of a row only the agent's own requests touch.
-- An accepted offer is announced here, the one place townhall.waitlist.accepted is built: its
-- type, its subject (the event) and its data (the entry, as the waitlist's reads answer it), on
-- `p_offer_event`, the stamp the service's outbox gives it (id, source, time and trace; OutboxWriter
-- .stamp); none if null. The release before passes a whole event there, which this completes the
-- same way. Refusals (SQLSTATE TH001): those of take_seat.
CREATE OR REPLACE FUNCTION ticketing.take_seat_for(
  p_event uuid, p_tier text, p_agent text, p_at timestamptz, p_offer_event jsonb
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_offer ticketing.waitlist;
  v_status text;
BEGIN
  UPDATE ticketing.waitlist w SET status = 'accepted', updated_at = p_at
   WHERE w.event_id = p_event AND w.agent_id = p_agent AND w.tier_id = p_tier
     AND w.status = 'offered' AND w.offer_expires_at > p_at
  RETURNING w.* INTO v_offer;
  IF NOT FOUND THEN
    PERFORM ticketing.take_seat(p_event, p_tier);
    RETURN 'sale';
  END IF;
  -- On sale, as take_seat checks it: a cancellation of the event waits for this, or this for it.
  SELECT status INTO v_status FROM ticketing.events WHERE event_id = p_event FOR SHARE;
  IF NOT ticketing.on_sale(v_status) THEN
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'not_on_sale', DETAIL = v_status;
  END IF;
  IF p_offer_event IS NOT NULL THEN
    PERFORM ticketing.announce(jsonb_build_array(p_offer_event || jsonb_build_object(
      'type', 'townhall.waitlist.accepted',
      'subject', p_event::text,
      'data', ticketing.waitlist_entry_json(v_offer))));
  END IF;
  RETURN 'offer';
END $$;

-- A use of an event's code, counted in the transaction that issues the ticket carrying it
-- (docs/product.md "Codes"): one conditional update of the code's row, so uses never pass
-- `max_uses` however many buyers race (the row lock orders them; the check constraint
-- codes_within_max_uses is the last word), and a rolled-back purchase counts nothing. Returns the
-- code as the host wrote it, which the ticket records. Refusals (SQLSTATE TH001): 'code_not_found'
-- (none, or removed), 'code_expired', 'code_exhausted'.
CREATE OR REPLACE FUNCTION ticketing.use_code(p_event uuid, p_code text, p_at timestamptz)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_code ticketing.codes;
BEGIN
  UPDATE ticketing.codes SET uses = uses + 1
   WHERE event_id = p_event AND code_key = lower(p_code)
     AND (max_uses IS NULL OR uses < max_uses) AND (expires_at IS NULL OR expires_at > p_at)
  RETURNING * INTO v_code;
  IF FOUND THEN
    RETURN v_code.code;
  END IF;
  SELECT * INTO v_code FROM ticketing.codes WHERE event_id = p_event AND code_key = lower(p_code);
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'code_not_found';
  ELSIF v_code.expires_at IS NOT NULL AND v_code.expires_at <= p_at THEN
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'code_expired';
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'code_exhausted';
END $$;

-- A paid ticket on the ledger in one call and one transaction (issue [10]: about 17 round trips
-- became 2, the sale's read and this): the held ticket, the (payer, nonce) claim, both ledger
-- entries, the payer's debit, the domain events (`p_events`, built by the service), then the rows
-- every buyer shares (the seat, or the payer's waitlist offer: ticketing.take_seat_for; the
-- ticket right after it; the host's balance), so each purchase holds those for its last
-- statements only. The payment row names its ticket and transaction from the start (their ids
-- come from the service): its foreign key to the ticket is checked at commit (DEFERRABLE).
-- Outcome: 'stale' (`p_event_version` is given and the event's row is at another version:
-- nothing was written, the service reads the event again), 'held' (the payer's live ticket),
-- 'paid' (this payment bought `ticket` already) or 'purchased' (`offer_accepted`: the seat was the
-- payer's waitlist offer, announced by take_seat_for). `p_code`: the host's code the price was
-- discounted by (`p_amount` is that price), its use counted by ticketing.use_code right after the
-- seat and recorded on the ticket and both entries. Refusals (SQLSTATE TH001, the whole call
-- rolled back, so a refusal writes nothing): 'nonce_reused', 'id_reused', 'insufficient_funds', those of
-- take_seat ('sold_out', 'not_on_sale') and those of use_code ('code_not_found', 'code_expired',
-- 'code_exhausted').
-- `p_payment_id`: the x402 `payment-identifier` id the payment carries, claimed for the payer in
-- ticketing.payment_ids after the held ticket is looked for: another payment under it is refused
-- 'id_reused' (a concurrent one waits on the key until the first ends). `p_receipt`: the x402
-- receipt the service signed for the ticket, kept on it.
-- The signatures before `p_event_version` and `offer_accepted`, and before `p_payment_id`.
DROP FUNCTION IF EXISTS ticketing.purchase(
  text, text, text, text, uuid, text, text, numeric, text, uuid, uuid, uuid, timestamptz, jsonb, jsonb);
DROP FUNCTION IF EXISTS ticketing.purchase(
  text, text, text, text, uuid, text, text, numeric, text, uuid, uuid, uuid, timestamptz, jsonb, jsonb,
  integer, text);
CREATE OR REPLACE FUNCTION ticketing.purchase(
  p_payer text, p_nonce text, p_fingerprint text, p_network text,
  p_event uuid, p_tier text, p_host text, p_amount numeric, p_asset text,
  p_ticket uuid, p_debit uuid, p_credit uuid, p_at timestamptz, p_events jsonb,
  p_offer_event jsonb DEFAULT NULL, p_event_version integer DEFAULT NULL, p_code text DEFAULT NULL,
  p_payment_id text DEFAULT NULL, p_receipt jsonb DEFAULT NULL,
  OUT outcome text, OUT ticket uuid, OUT transaction_id text, OUT offer_accepted boolean
) LANGUAGE plpgsql AS $$
DECLARE
  v_earlier record;
  v_identified record;
BEGIN
  offer_accepted := false;
  IF p_event_version IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM ticketing.events WHERE event_id = p_event AND version = p_event_version) THEN
    outcome := 'stale';
    RETURN;
  END IF;
  SELECT id INTO ticket FROM ticketing.live_ticket(p_event, p_payer);
  IF FOUND THEN
    outcome := 'held';
    RETURN;
  END IF;
  -- A concurrent claim of the same (payer, payment id) waits here until the first one ends.
  IF p_payment_id IS NOT NULL THEN
    INSERT INTO ticketing.payment_ids (payer, payment_id, fingerprint, ticket_id, created_at)
    VALUES (p_payer, p_payment_id, p_fingerprint, p_ticket, p_at)
    ON CONFLICT (payer, payment_id) DO NOTHING;
    IF NOT FOUND THEN
      SELECT fingerprint INTO v_identified FROM ticketing.payment_ids
       WHERE payer = p_payer AND payment_id = p_payment_id;
      IF v_identified.fingerprint <> p_fingerprint THEN
        RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'id_reused';
      END IF;
      -- The same payment: the (payer, nonce) claim below answers with what it bought.
    END IF;
  END IF;
  -- A concurrent claim of the same (payer, nonce) waits here until the first one ends.
  INSERT INTO ticketing.payments
    (payer, nonce, fingerprint, event_id, tier_id, amount, asset, network, ticket_id, transaction)
  VALUES (p_payer, p_nonce, p_fingerprint, p_event, p_tier, p_amount, p_asset, p_network, p_ticket, p_debit::text)
  ON CONFLICT (payer, nonce) DO NOTHING;
  IF NOT FOUND THEN
    SELECT fingerprint, ticket_id, transaction INTO v_earlier FROM ticketing.payments
     WHERE payer = p_payer AND nonce = p_nonce;
    IF v_earlier.fingerprint = p_fingerprint AND v_earlier.ticket_id IS NOT NULL THEN
      -- An id claimed just now names the ticket this payment bought, not the one it would have.
      UPDATE ticketing.payment_ids SET ticket_id = v_earlier.ticket_id
       WHERE payer = p_payer AND payment_id = p_payment_id AND ticket_id = p_ticket;
      outcome := 'paid';
      ticket := v_earlier.ticket_id;
      transaction_id := v_earlier.transaction;
      RETURN;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'nonce_reused';
  END IF;
  INSERT INTO ticketing.ledger_entries
    (id, type, agent_id, amount, asset, event_id, ticket_id, counterparty_id, created_at, code)
  VALUES
    (p_debit, 'EVENT_TICKET', p_payer, -p_amount, p_asset, p_event, p_ticket, p_host, p_at, p_code),
    (p_credit, 'EVENT_TICKET', p_host, p_amount, p_asset, p_event, p_ticket, p_payer, p_at, p_code);
  UPDATE ticketing.balances SET amount = amount - p_amount
   WHERE agent_id = p_payer AND asset = p_asset AND amount >= p_amount;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'insufficient_funds';
  END IF;
  PERFORM ticketing.announce(p_events);
  -- The rows every buyer shares, last.
  offer_accepted := ticketing.take_seat_for(p_event, p_tier, p_payer, p_at, p_offer_event) = 'offer';
  IF p_code IS NOT NULL THEN
    PERFORM ticketing.use_code(p_event, p_code, p_at);
  END IF;
  -- After the seat: the foreign key's KEY SHARE lock on the event's row is then free (this
  -- transaction updated the row already), not one more locker in a MultiXact that every
  -- concurrent buyer's update of the row must copy. Another purchase by the same agent in
  -- flight: 23505 on tickets_one_live_per_agent.
  INSERT INTO ticketing.tickets (id, event_id, tier_id, holder_id, price, asset, status, created_at, code, receipt)
  VALUES (p_ticket, p_event, p_tier, p_payer, p_amount, p_asset, 'active', p_at, p_code, p_receipt);
  INSERT INTO ticketing.balances AS b (agent_id, asset, amount) VALUES (p_host, p_asset, p_amount)
  ON CONFLICT (agent_id, asset) DO UPDATE SET amount = b.amount + EXCLUDED.amount;
  outcome := 'purchased';
  ticket := p_ticket;
  transaction_id := p_debit::text;
END $$;

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A paid purchase on the ledger in one call and one transaction (issue [10]): about 17 round
 * trips became 2 (the event's row, then ticketing.purchase).
 * - ticketing.take_seat: the one owner of "take a seat" (the tier, then the event total, each a
 *   conditional update), called by ticketing.purchase and by every TypeScript path that takes a seat.
 * - ticketing.purchase: the held ticket, the (payer, nonce) claim, both ledger entries, the
 *   payer's debit, the domain events, then the rows every buyer shares (the seat counters, the
 *   host's balance), so each purchase holds those for its last statements only. The ticket is
 *   inserted right after the seat (see there why: measured 1.5x the purchases per second).
 * A refusal raises SQLSTATE TH001 with the refusal's name as its message ('nonce_reused',
 * 'insufficient_funds', 'sold_out', 'not_on_sale'; the status in DETAIL): the statement's
 * transaction rolls back, so a refusal writes nothing.
 * The payment row names its ticket and transaction from the start (their ids come from the
 * service), so its foreign key to the ticket is checked at commit, after the ticket exists.
 */
export class Purchase1764300000000 implements MigrationInterface {
  name = 'Purchase1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // ticketing.announce, as @townhall/platform's outboxAnnounceFunctionSql('ticketing') wrote it then
    // (copied: this migration runs what it ran). Its current definition is applied after the
    // migrations (outboxAnnounceFunction).
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "ticketing".announce(events jsonb) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "ticketing".outbox (id, type, subject, payload)
    SELECT (e->>'id')::uuid, e->>'type', e->>'subject', e
    FROM jsonb_array_elements(events) WITH ORDINALITY AS t(e, n) ORDER BY n
  $$`);
    await queryRunner.query(
      `ALTER TABLE ticketing.payments ALTER CONSTRAINT payments_ticket_id_fkey DEFERRABLE INITIALLY DEFERRED`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ticketing.take_seat(p_event uuid, p_tier text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        v_status text;
      BEGIN
        UPDATE ticketing.inventory SET sold = sold + 1
         WHERE event_id = p_event AND tier_id = p_tier AND sold < capacity;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'sold_out';
        END IF;
        UPDATE ticketing.events SET sold = sold + 1
         WHERE event_id = p_event AND sold < capacity AND status IN ('scheduled', 'live');
        IF NOT FOUND THEN
          SELECT status INTO v_status FROM ticketing.events WHERE event_id = p_event;
          IF v_status NOT IN ('scheduled', 'live') THEN
            RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'not_on_sale', DETAIL = v_status;
          END IF;
          RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'sold_out';
        END IF;
      END $$`);
    // 'held' (the payer's live ticket), 'paid' (this payment bought `ticket` already) or
    // 'purchased'; or a refusal raised.
    await queryRunner.query(`
      CREATE FUNCTION ticketing.purchase(
        p_payer text, p_nonce text, p_fingerprint text, p_network text,
        p_event uuid, p_tier text, p_host text, p_amount numeric, p_asset text,
        p_ticket uuid, p_debit uuid, p_credit uuid, p_at timestamptz, p_events jsonb,
        OUT outcome text, OUT ticket uuid, OUT transaction_id text
      ) LANGUAGE plpgsql AS $$
      DECLARE
        v_earlier record;
      BEGIN
        SELECT id INTO ticket FROM ticketing.tickets
         WHERE event_id = p_event AND holder_id = p_payer AND status = 'active';
        IF FOUND THEN
          outcome := 'held';
          RETURN;
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
            outcome := 'paid';
            ticket := v_earlier.ticket_id;
            transaction_id := v_earlier.transaction;
            RETURN;
          END IF;
          RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'nonce_reused';
        END IF;
        INSERT INTO ticketing.ledger_entries
          (id, type, agent_id, amount, asset, event_id, ticket_id, counterparty_id, created_at)
        VALUES
          (p_debit, 'EVENT_TICKET', p_payer, -p_amount, p_asset, p_event, p_ticket, p_host, p_at),
          (p_credit, 'EVENT_TICKET', p_host, p_amount, p_asset, p_event, p_ticket, p_payer, p_at);
        UPDATE ticketing.balances SET amount = amount - p_amount
         WHERE agent_id = p_payer AND asset = p_asset AND amount >= p_amount;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'insufficient_funds';
        END IF;
        PERFORM ticketing.announce(p_events);
        -- The rows every buyer shares, last.
        PERFORM ticketing.take_seat(p_event, p_tier);
        -- After the seat: the foreign key's KEY SHARE lock on the event's row is then free (this
        -- transaction updated the row already), not one more locker in a MultiXact that every
        -- concurrent buyer's update of the row must copy. Another purchase by the same agent in
        -- flight: 23505 on tickets_one_live_per_agent.
        INSERT INTO ticketing.tickets (id, event_id, tier_id, holder_id, price, asset, status, created_at)
        VALUES (p_ticket, p_event, p_tier, p_payer, p_amount, p_asset, 'active', p_at);
        INSERT INTO ticketing.balances AS b (agent_id, asset, amount) VALUES (p_host, p_asset, p_amount)
        ON CONFLICT (agent_id, asset) DO UPDATE SET amount = b.amount + EXCLUDED.amount;
        outcome := 'purchased';
        ticket := p_ticket;
        transaction_id := p_debit::text;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION ticketing.purchase`);
    await queryRunner.query(`DROP FUNCTION ticketing.take_seat`);
    await queryRunner.query(
      `ALTER TABLE ticketing.payments ALTER CONSTRAINT payments_ticket_id_fkey NOT DEFERRABLE`,
    );
    await queryRunner.query(`DROP FUNCTION ticketing.announce`);
  }
}

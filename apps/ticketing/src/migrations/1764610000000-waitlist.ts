import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The waitlist (docs/product.md "Waitlist"), next to the seats it hands out.
 * - ticketing.waitlist: one row per time an agent joined; `seq` (a sequence) is the order of
 *   joining; one live entry (waiting or offered) per agent per event, by a unique partial index.
 * - A held offer is a taken seat: the seat counters (`sold`) count it, so the check constraints
 *   `sold <= capacity` keep "tickets + held offers <= capacity" per tier and in total, and
 *   ticketing.take_seat never sells a held seat to anyone else.
 * - ticketing.purchase accepts the payer's live offer for the tier instead of taking a seat
 *   (the seat is already held for it), announcing townhall.waitlist.accepted with the entry; the
 *   envelope comes from the service (`p_offer_event`), the entry from the row.
 * - ticketing.events.offer_minutes: the event field, from townhall.event.*.
 */
export class Waitlist1764610000000 implements MigrationInterface {
  name = 'Waitlist1764610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ticketing.events ADD COLUMN offer_minutes integer NOT NULL DEFAULT 15
        CONSTRAINT events_offer_minutes CHECK (offer_minutes BETWEEN 1 AND 1440)`);
    await queryRunner.query(`
      CREATE TABLE ticketing.waitlist (
        id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq              bigserial NOT NULL UNIQUE,
        event_id         uuid NOT NULL REFERENCES ticketing.events (event_id),
        tier_id          text NOT NULL,
        agent_id         text NOT NULL,
        status           text NOT NULL DEFAULT 'waiting'
                         CHECK (status IN ('waiting', 'offered', 'accepted', 'expired', 'left')),
        offer_expires_at timestamptz,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        CONSTRAINT waitlist_offer_expiry CHECK (status <> 'offered' OR offer_expires_at IS NOT NULL)
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX waitlist_one_live_per_agent ON ticketing.waitlist (event_id, agent_id)
       WHERE status IN ('waiting', 'offered')`,
    );
    // The line itself, in order of joining: who is next (for any tier), and each one's place.
    await queryRunner.query(
      `CREATE INDEX waitlist_line ON ticketing.waitlist (event_id, seq) WHERE status = 'waiting'`,
    );
    await queryRunner.query(
      `CREATE INDEX waitlist_offers_due ON ticketing.waitlist (offer_expires_at) WHERE status = 'offered'`,
    );
    await queryRunner.query(`CREATE INDEX waitlist_by_agent ON ticketing.waitlist (agent_id, seq)`);
    // As Date.toISOString() writes it.
    await queryRunner.query(`
      CREATE FUNCTION ticketing.instant_json(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION ticketing.waitlist_entry_json(w ticketing.waitlist) RETURNS jsonb LANGUAGE sql STABLE AS $$
        SELECT jsonb_build_object(
          'id', w.id, 'eventId', w.event_id, 'tierId', w.tier_id, 'agentId', w.agent_id,
          'position', NULL, 'status', w.status,
          'offerExpiresAt', ticketing.instant_json(w.offer_expires_at),
          'createdAt', ticketing.instant_json(w.created_at),
          'updatedAt', ticketing.instant_json(w.updated_at))
      $$`);
    await queryRunner.query(`DROP FUNCTION ticketing.purchase(${PURCHASE_ARGS.v1})`);
    await queryRunner.query(purchaseFunctionSql(true));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION ticketing.purchase(${PURCHASE_ARGS.v2})`);
    await queryRunner.query(purchaseFunctionSql(false));
    await queryRunner.query(`DROP FUNCTION ticketing.waitlist_entry_json`);
    await queryRunner.query(`DROP FUNCTION ticketing.instant_json`);
    await queryRunner.query(`DROP TABLE ticketing.waitlist`);
    await queryRunner.query(`ALTER TABLE ticketing.events DROP COLUMN offer_minutes`);
  }
}

const V1_ARGS = `text, text, text, text, uuid, text, text, numeric, text, uuid, uuid, uuid, timestamptz, jsonb`;
const PURCHASE_ARGS = { v1: V1_ARGS, v2: `${V1_ARGS}, jsonb` };

/**
 * ticketing.purchase as migration 1764300000000-purchase made it (`waitlist: false`), and with
 * the waitlist (`true`): the payer's live offer for the tier is accepted instead of a seat taken.
 * The offer's UPDATE is a probe of the small partial unique index (nothing for almost everyone),
 * of a row only the payer's own requests touch.
 */
function purchaseFunctionSql(waitlist: boolean): string {
  const seat = waitlist
    ? `
        -- A seat held for the payer by a waitlist offer (the counters count it already): accepted.
        UPDATE ticketing.waitlist w SET status = 'accepted', updated_at = p_at
         WHERE w.event_id = p_event AND w.agent_id = p_payer AND w.tier_id = p_tier
           AND w.status = 'offered' AND w.offer_expires_at > p_at
        RETURNING w.* INTO v_offer;
        IF FOUND THEN
          -- On sale, as take_seat checks it: a cancellation of the event waits for this, or this for it.
          SELECT status INTO v_status FROM ticketing.events WHERE event_id = p_event FOR SHARE;
          IF v_status NOT IN ('scheduled', 'live') THEN
            RAISE EXCEPTION USING ERRCODE = 'TH001', MESSAGE = 'not_on_sale', DETAIL = v_status;
          END IF;
          IF p_offer_event IS NOT NULL THEN
            PERFORM ticketing.announce(jsonb_build_array(
              jsonb_set(p_offer_event, '{data}', ticketing.waitlist_entry_json(v_offer))));
          END IF;
        ELSE
          PERFORM ticketing.take_seat(p_event, p_tier);
        END IF;`
    : `
        PERFORM ticketing.take_seat(p_event, p_tier);`;
  return `
      CREATE FUNCTION ticketing.purchase(
        p_payer text, p_nonce text, p_fingerprint text, p_network text,
        p_event uuid, p_tier text, p_host text, p_amount numeric, p_asset text,
        p_ticket uuid, p_debit uuid, p_credit uuid, p_at timestamptz, p_events jsonb,${
          waitlist ? ' p_offer_event jsonb DEFAULT NULL,' : ''
        }
        OUT outcome text, OUT ticket uuid, OUT transaction_id text
      ) LANGUAGE plpgsql AS $$
      DECLARE
        v_earlier record;${waitlist ? '\n        v_offer ticketing.waitlist;\n        v_status text;' : ''}
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
        -- The rows every buyer shares, last.${seat}
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
      END $$`;
}

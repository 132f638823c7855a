// Each of ticketing's SQL functions (src/db/functions/) called through its typed wrapper
// (src/db/functions.ts) on a migrated database of its own: afresh, or (the service-upgraded
// project) upgraded from the schema deployed databases have. The rows each case starts from are
// written here directly; the use cases that call these functions are the other specs' business.
import { randomUUID } from 'node:crypto';
import { WaitlistTopics, type CloudEvent } from '@townhall/contracts';
import { functionDrift, migratedForTests, schemaUnderTest, type SchemaUnderTest } from '@townhall/testing';
import { createTicketingDataSource } from '../src/data-source.js';
import {
  purchaseCall,
  takeSeat,
  takeSeatFor,
  WAITLIST_ENTRY,
  type PurchaseArgs,
  type WaitlistEntryRow,
} from '../src/db/functions.js';

const MINUTE = 60_000;

describe("ticketing's SQL functions, through their wrappers", () => {
  let schema: SchemaUnderTest;

  beforeAll(async () => {
    schema = await schemaUnderTest(createTicketingDataSource);
  });
  afterAll(() => schema?.close());

  /** An event on sale with `tiers` (id: capacity, all at `price`) and a total of `capacity`. */
  async function anEvent(capacity: number, tiers: Record<string, number>, price = '0'): Promise<string> {
    const eventId = randomUUID();
    await schema.query(
      `INSERT INTO ticketing.events (event_id, host_id, status, starts_at, ticketing, capacity, updated_at, version)
       VALUES ($1, 'host', 'scheduled', now() + interval '1 day', '{"mode": "free"}', $2, now(), 1)`,
      [eventId, capacity],
    );
    for (const [tierId, tierCapacity] of Object.entries(tiers))
      await schema.query(
        `INSERT INTO ticketing.inventory (event_id, tier_id, price, capacity) VALUES ($1, $2, $3, $4)`,
        [eventId, tierId, price, tierCapacity],
      );
    return eventId;
  }
  const setStatus = (eventId: string, status: string) =>
    schema.query(`UPDATE ticketing.events SET status = $2 WHERE event_id = $1`, [eventId, status]);
  /** A waitlist offer of a seat of `tierId` to `agentId` (its seat counted as sold, as WaitlistSeats does). */
  async function anOffer(eventId: string, tierId: string, agentId: string, expiresAt: Date): Promise<string> {
    await schema.query(
      `UPDATE ticketing.inventory SET sold = sold + 1 WHERE event_id = $1 AND tier_id = $2`,
      [eventId, tierId],
    );
    await schema.query(`UPDATE ticketing.events SET sold = sold + 1 WHERE event_id = $1`, [eventId]);
    const [row] = await schema.query<{ id: string }>(
      `INSERT INTO ticketing.waitlist (event_id, tier_id, agent_id, status, offer_expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'offered', $4, now(), now()) RETURNING id`,
      [eventId, tierId, agentId, expiresAt],
    );
    return row!.id;
  }
  const sold = async (eventId: string) =>
    (
      await schema.query<{ sold: number; tiers: Record<string, number> }>(
        `SELECT e.sold, (SELECT jsonb_object_agg(tier_id, sold) FROM ticketing.inventory i WHERE i.event_id = e.event_id) AS tiers
           FROM ticketing.events e WHERE e.event_id = $1`,
        [eventId],
      )
    )[0];
  const announced = (subject: string) =>
    schema
      .query<{ payload: CloudEvent }>(
        `SELECT payload FROM ticketing.outbox WHERE subject = $1 ORDER BY seq`,
        [subject],
      )
      .then((rows) => rows.map((row) => row.payload));

  it('holds exactly its definitions, each as last applied, by the path this run asked for', async () => {
    expect(await functionDrift(schema.dataSource)).toEqual([]);
    expect(schema.built).toEqual(migratedForTests(schema.dataSource));
  });

  it('take_seat: a seat of the tier and of the total, until either is gone; none once not on sale', async () => {
    const eventId = await anEvent(3, { a: 2, b: 2 });
    const take = (tierId: string) => schema.transaction((manager) => takeSeat(manager, { eventId, tierId }));
    expect(await take('a')).toEqual({ outcome: 'taken' });
    expect(await take('a')).toEqual({ outcome: 'taken' });
    expect(await take('a')).toEqual({ outcome: 'refused', refusal: 'sold_out', detail: null });
    expect(await take('b')).toEqual({ outcome: 'taken' });
    expect(await take('b')).toEqual({ outcome: 'refused', refusal: 'sold_out', detail: null }); // the total
    expect(await sold(eventId)).toEqual({ sold: 3, tiers: { a: 2, b: 1 } });

    const other = await anEvent(5, { general: 5 });
    await setStatus(other, 'cancelled');
    expect(
      await schema.transaction((manager) => takeSeat(manager, { eventId: other, tierId: 'general' })),
    ).toEqual({
      outcome: 'refused',
      refusal: 'not_on_sale',
      detail: 'cancelled',
    });
    expect(await sold(other)).toEqual({ sold: 0, tiers: { general: 0 } });
  });

  it('take_seat_for: the seat an offer holds (accepted, announced), else one from the sale', async () => {
    const eventId = await anEvent(2, { general: 2 }, '100');
    const now = new Date();
    const offerId = await anOffer(eventId, 'general', 'offered', new Date(now.getTime() + 5 * MINUTE));
    const seatFor = (agentId: string) =>
      schema.transaction((manager) =>
        takeSeatFor(manager, schema.outbox, { eventId, tierId: 'general', agentId, at: now }),
      );

    expect(await seatFor('offered')).toEqual({ outcome: 'offer' });
    expect(await sold(eventId)).toEqual({ sold: 1, tiers: { general: 1 } }); // the held seat, no other
    const [accepted] = await announced(eventId);
    expect(accepted).toMatchObject({
      type: WaitlistTopics.accepted,
      source: 'townhall/ticketing',
      subject: eventId,
      data: {
        id: offerId,
        eventId,
        tierId: 'general',
        agentId: 'offered',
        status: 'accepted',
        position: null,
      },
    });
    // Accepted once: again, the agent takes a seat from the sale like anyone.
    expect(await seatFor('offered')).toEqual({ outcome: 'sale' });
    expect(await seatFor('someone')).toEqual({ outcome: 'refused', refusal: 'sold_out', detail: null });

    // An offer that ran out holds nothing; the offer of an event no longer on sale is refused.
    const later = await anEvent(5, { general: 5 }, '100');
    await anOffer(later, 'general', 'late', new Date(now.getTime() - MINUTE));
    const forLate = () =>
      schema.transaction((manager) =>
        takeSeatFor(manager, schema.outbox, { eventId: later, tierId: 'general', agentId: 'late', at: now }),
      );
    expect(await forLate()).toEqual({ outcome: 'sale' });
    const ended = await anEvent(5, { general: 5 }, '100');
    await anOffer(ended, 'general', 'holder', new Date(now.getTime() + MINUTE));
    await setStatus(ended, 'ended');
    expect(
      await schema.transaction((manager) =>
        takeSeatFor(manager, schema.outbox, {
          eventId: ended,
          tierId: 'general',
          agentId: 'holder',
          at: now,
        }),
      ),
    ).toEqual({ outcome: 'refused', refusal: 'not_on_sale', detail: 'ended' });
    expect(await announced(ended)).toEqual([]);
  });

  it("take_seat_for: the release before's call, a whole event to fill, announces the same event", async () => {
    const eventId = await anEvent(2, { general: 2 }, '100');
    const now = new Date();
    const offerId = await anOffer(eventId, 'general', 'offered', new Date(now.getTime() + 5 * MINUTE));
    // That release prepared townhall.waitlist.accepted itself, with its data left null.
    const [prepared] = schema.outbox.prepare([
      { type: WaitlistTopics.accepted, subject: eventId, data: null },
    ]);
    const [row] = await schema.transaction((manager) =>
      manager.query(
        `SELECT ticketing.take_seat_for(p_event => $1, p_tier => $2, p_agent => $3, p_at => $4,
           p_offer_event => $5::jsonb) AS outcome`,
        [eventId, 'general', 'offered', now, JSON.stringify(prepared)],
      ),
    );
    expect(row).toEqual({ outcome: 'offer' });
    expect(await announced(eventId)).toEqual([
      { ...prepared, data: expect.objectContaining({ id: offerId, status: 'accepted', agentId: 'offered' }) },
    ]);
  });

  describe('purchase', () => {
    const purchase = (args: PurchaseArgs) => purchaseCall(schema.dataSource, schema.outbox)(args);
    /** A payment of `amount` by `payer` for `eventId`, every id new. */
    function aPayment(
      eventId: string,
      payer: string,
      amount = '300',
      nonce: string = randomUUID(),
    ): PurchaseArgs {
      const ticketId = randomUUID();
      return {
        payer,
        nonce,
        fingerprint: `fp-${nonce}`,
        network: 'ledger:test',
        eventId,
        tierId: 'general',
        hostId: 'host',
        amount,
        asset: 'USDC',
        ticketId,
        debitId: randomUUID(),
        creditId: randomUUID(),
        at: new Date().toISOString(),
        events: schema.outbox.prepare([
          { type: 'townhall.ticket.issued', subject: eventId, data: { id: ticketId } },
        ]),
      };
    }
    const fund = (agentId: string, amount: string) =>
      schema.query(`INSERT INTO ticketing.balances (agent_id, asset, amount) VALUES ($1, 'USDC', $2)`, [
        agentId,
        amount,
      ]);
    const balance = async (agentId: string) =>
      (
        await schema.query<{ amount: string }>(
          `SELECT amount::text FROM ticketing.balances WHERE agent_id = $1 AND asset = 'USDC'`,
          [agentId],
        )
      )[0]?.amount;
    const footprint = async (eventId: string) =>
      (
        await schema.query(
          `SELECT (SELECT count(*)::int FROM ticketing.payments WHERE event_id = $1) AS payments,
                  (SELECT count(*)::int FROM ticketing.tickets WHERE event_id = $1) AS tickets,
                  (SELECT count(*)::int FROM ticketing.ledger_entries WHERE event_id = $1) AS entries,
                  (SELECT count(*)::int FROM ticketing.outbox WHERE subject = $1::text) AS announced,
                  (SELECT sold FROM ticketing.events WHERE event_id = $1) AS sold`,
          [eventId],
        )
      )[0];

    it('buys once: a holder is charged nothing, and the same payment again answers with what it bought', async () => {
      const eventId = await anEvent(5, { general: 5 }, '300');
      const payer = `payer-${randomUUID()}`;
      await fund(payer, '1000');
      const payment = aPayment(eventId, payer);
      expect(await purchase(payment)).toEqual({
        outcome: 'purchased',
        ticketId: payment.ticketId,
        transactionId: payment.debitId,
      });
      expect(await purchase(payment)).toEqual({ outcome: 'held', ticketId: payment.ticketId });
      expect(await purchase(aPayment(eventId, payer))).toEqual({
        outcome: 'held',
        ticketId: payment.ticketId,
      });
      // Once the ticket is gone, the payment that bought it still answers with it, charging nothing.
      await schema.query(`UPDATE ticketing.tickets SET status = 'cancelled' WHERE id = $1`, [
        payment.ticketId,
      ]);
      expect(await purchase(payment)).toEqual({
        outcome: 'paid',
        ticketId: payment.ticketId,
        transactionId: payment.debitId,
      });
      expect(await balance(payer)).toBe('700');
      expect(await footprint(eventId)).toEqual({
        payments: 1,
        tickets: 1,
        entries: 2,
        announced: 1,
        sold: 1,
      });
      expect((await announced(eventId)).map((event) => event.id)).toEqual(
        payment.events.map((event) => event.id),
      );
    });

    it('refuses, writing nothing: a nonce used for another payment, no funds, no seat, not on sale', async () => {
      const eventId = await anEvent(1, { general: 1 }, '300');
      const [rich, poor] = [`rich-${randomUUID()}`, `poor-${randomUUID()}`];
      await fund(rich, '1000');
      await fund(poor, '299');
      expect(await purchase(aPayment(eventId, poor))).toEqual({
        outcome: 'refused',
        refusal: 'insufficient_funds',
        detail: null,
      });
      const elsewhere = aPayment(await anEvent(5, { general: 5 }, '300'), rich);
      await purchase(elsewhere);
      // The nonce of the payment for the other event, in another payment of the same payer's.
      const reused = { ...aPayment(eventId, rich, '300', elsewhere.nonce), fingerprint: 'another payment' };
      expect(await purchase(reused)).toEqual({ outcome: 'refused', refusal: 'nonce_reused', detail: null });
      expect(await footprint(eventId)).toEqual({
        payments: 0,
        tickets: 0,
        entries: 0,
        announced: 0,
        sold: 0,
      });
      await purchase(aPayment(eventId, rich)); // the one seat
      const bought = await footprint(eventId);
      const other = `other-${randomUUID()}`;
      await fund(other, '1000');
      expect(await purchase(aPayment(eventId, other))).toEqual({
        outcome: 'refused',
        refusal: 'sold_out',
        detail: null,
      });
      expect(await footprint(eventId)).toEqual(bought);
      expect(await balance(other)).toBe('1000');

      const ended = await anEvent(5, { general: 5 }, '300');
      await setStatus(ended, 'ended');
      expect(await purchase(aPayment(ended, other))).toEqual({
        outcome: 'refused',
        refusal: 'not_on_sale',
        detail: 'ended',
      });
      expect(await footprint(ended)).toEqual({ payments: 0, tickets: 0, entries: 0, announced: 0, sold: 0 });
    });

    it("takes the seat the payer's offer holds, announcing the offer accepted after the purchase's events", async () => {
      const eventId = await anEvent(1, { general: 1 }, '300');
      const payer = `offered-${randomUUID()}`;
      await fund(payer, '300');
      await anOffer(eventId, 'general', payer, new Date(Date.now() + 5 * MINUTE));
      const payment = aPayment(eventId, payer);
      expect(await purchase(payment)).toMatchObject({ outcome: 'purchased' });
      expect(await sold(eventId)).toEqual({ sold: 1, tiers: { general: 1 } });
      expect((await announced(eventId)).map((event) => event.type)).toEqual([
        'townhall.ticket.issued',
        WaitlistTopics.accepted,
      ]);
    });

    it('answers lost_race to the second of two purchases of one payer in flight at once', async () => {
      const eventId = await anEvent(5, { general: 5 }, '100');
      const payer = `racer-${randomUUID()}`;
      await fund(payer, '1000');
      // Both wait at the seat (locked here) after their held-ticket check; then one commits first.
      const lock = schema.dataSource.createQueryRunner();
      await lock.startTransaction();
      await lock.query(`SELECT 1 FROM ticketing.inventory WHERE event_id = $1 FOR UPDATE`, [eventId]);
      const racing = [purchase(aPayment(eventId, payer, '100')), purchase(aPayment(eventId, payer, '100'))];
      await waitForLockWaiters(2);
      await lock.commitTransaction();
      await lock.release();
      const outcomes = (await Promise.all(racing)).map((result) => result.outcome).sort();
      expect(outcomes).toEqual(['lost_race', 'purchased']);
      expect(await balance(payer)).toBe('900');
    });

    async function waitForLockWaiters(count: number): Promise<void> {
      for (let tries = 0; tries < 200; tries++) {
        const [row] = await schema.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (row!.waiting >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`expected ${count} purchases waiting for the seat`);
    }
  });

  it('waitlist_entry_json: an entry as the API shows it, its place in its tier line while waiting', async () => {
    const eventId = await anEvent(1, { a: 1, b: 1 });
    const at = new Date('2031-05-06T07:08:09.123Z');
    const join = async (agentId: string, tierId: string) =>
      (
        await schema.query<{ id: string }>(
          `INSERT INTO ticketing.waitlist (event_id, tier_id, agent_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $4) RETURNING id`,
          [eventId, tierId, agentId, at],
        )
      )[0]!.id;
    const ids = [await join('first', 'a'), await join('other', 'b'), await join('second', 'a')];
    await schema.query(
      `UPDATE ticketing.waitlist SET status = 'offered', offer_expires_at = $2::timestamptz + interval '5 minutes'
        WHERE id = $1`,
      [ids[0], at],
    );
    const entries = await schema.query<WaitlistEntryRow>(
      `SELECT ${WAITLIST_ENTRY} FROM ticketing.waitlist w WHERE w.event_id = $1 ORDER BY w.seq`,
      [eventId],
    );
    const entry = (id: string, agentId: string, tierId: string) => ({
      id,
      eventId,
      tierId,
      agentId,
      createdAt: '2031-05-06T07:08:09.123Z',
      updatedAt: '2031-05-06T07:08:09.123Z',
    });
    expect(entries.map((row) => row.entry)).toEqual([
      {
        ...entry(ids[0]!, 'first', 'a'),
        status: 'offered',
        position: null,
        offerExpiresAt: '2031-05-06T07:13:09.123Z',
      },
      { ...entry(ids[1]!, 'other', 'b'), status: 'waiting', position: 1, offerExpiresAt: null },
      { ...entry(ids[2]!, 'second', 'a'), status: 'waiting', position: 1, offerExpiresAt: null },
    ]);
    const [instant] = await schema.query<{ text: string }>(
      `SELECT ticketing.instant_json('0999-12-31T23:59:59.999Z') AS text`,
    );
    expect(instant!.text).toBe(new Date('0999-12-31T23:59:59.999Z').toISOString());
  });

  it('announce appends events in the order given; ledger_entries_immutable keeps the ledger', async () => {
    const subject = randomUUID();
    const events = schema.outbox.prepare(
      [1, 2, 3].map((n) => ({ type: 'townhall.ticket.issued', subject, data: { n } })),
    );
    await schema.query(`SELECT ticketing.announce($1::jsonb)`, [JSON.stringify(events)]);
    expect(await announced(subject)).toEqual(events);

    const [entry] = await schema.query<{ id: string }>(
      `INSERT INTO ticketing.ledger_entries (type, agent_id, amount, asset) VALUES ('FAUCET', 'someone', 5, 'USDC')
       RETURNING id`,
    );
    await expect(
      schema.query(`UPDATE ticketing.ledger_entries SET amount = 6 WHERE id = $1`, [entry!.id]),
    ).rejects.toThrow('ledger entries are immutable');
    await expect(
      schema.query(`DELETE FROM ticketing.ledger_entries WHERE id = $1`, [entry!.id]),
    ).rejects.toThrow('ledger entries are immutable');
  });
});

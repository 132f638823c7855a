// A deployed database upgraded to the repeatable function step (issue [16]): the schema as the
// migrations of that time made it (their own functions, no function_checksums), sales and a
// waitlist written through those functions, then the migrate command of today. Its data stays as
// it was, and today's functions (db/functions/) run on it.
import { randomUUID } from 'node:crypto';
import { migrateSchema } from '@townhall/platform/service';
import { deployedSchemaUnderTest, functionDrift, type SchemaUnderTest } from '@townhall/testing';
import { createTicketingDataSource } from '../src/data-source.js';
import { purchaseCall, takeSeat, WAITLIST_ENTRY, type WaitlistEntryRow } from '../src/db/functions.js';

describe('ticketing: a deployed database upgraded to the functions applied by checksum', () => {
  let schema: SchemaUnderTest;

  beforeAll(async () => {
    schema = await deployedSchemaUnderTest(createTicketingDataSource);
  });
  afterAll(() => schema?.close());

  const eventId = randomUUID();
  const [buyer, offered, waiting, late] = ['buyer', 'offered', 'waiting', 'late'];
  /** Everything the old schema held, as it reads it. */
  const snapshot = () =>
    schema.query(
      `SELECT (SELECT json_agg(e ORDER BY event_id) FROM ticketing.events e) AS events,
              (SELECT json_agg(i ORDER BY tier_id) FROM ticketing.inventory i) AS inventory,
              (SELECT json_agg(t ORDER BY created_at) FROM ticketing.tickets t) AS tickets,
              (SELECT json_agg(p ORDER BY nonce) FROM ticketing.payments p) AS payments,
              (SELECT json_agg(l ORDER BY seq) FROM ticketing.ledger_entries l) AS ledger,
              (SELECT json_agg(b ORDER BY agent_id) FROM ticketing.balances b) AS balances,
              (SELECT json_agg(w ORDER BY seq) FROM ticketing.waitlist w) AS waitlist,
              (SELECT json_agg(o ORDER BY seq) FROM ticketing.outbox o) AS outbox`,
    );

  it('keeps the data written through the old functions, and runs the new ones on it', async () => {
    expect(schema.built).toHaveLength(6);
    // A sale through the old ticketing.purchase.
    await schema.query(
      `INSERT INTO ticketing.events (event_id, host_id, status, starts_at, ticketing, capacity, updated_at, version)
       VALUES ($1, 'host', 'scheduled', now() + interval '1 day', '{"mode": "single", "price": "300"}', 2, now(), 1)`,
      [eventId],
    );
    await schema.query(
      `INSERT INTO ticketing.inventory (event_id, tier_id, price, capacity) VALUES ($1, 'general', 300, 2)`,
      [eventId],
    );
    await schema.query(
      `INSERT INTO ticketing.balances (agent_id, asset, amount) VALUES ($1, 'USDC', 1000), ($2, 'USDC', 1000),
      ($3, 'USDC', 1000)`,
      [buyer, offered, late],
    );
    const [sale] = await schema.query<{ outcome: string }>(
      `SELECT outcome FROM ticketing.purchase($1, 'nonce-1', 'fp-1', 'ledger:test', $2, 'general', 'host', 300, 'USDC',
         gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), now(), '[]'::jsonb)`,
      [buyer, eventId],
    );
    expect(sale!.outcome).toBe('purchased');
    // The other seat, held by a waitlist offer; another agent waits behind it.
    await schema.query(`UPDATE ticketing.inventory SET sold = sold + 1 WHERE event_id = $1`, [eventId]);
    await schema.query(`UPDATE ticketing.events SET sold = sold + 1 WHERE event_id = $1`, [eventId]);
    await schema.query(
      `INSERT INTO ticketing.waitlist (event_id, tier_id, agent_id, status, offer_expires_at, created_at, updated_at)
       VALUES ($1, 'general', $2, 'offered', now() + interval '10 minutes', now(), now()),
              ($1, 'general', $3, 'waiting', NULL, now(), now())`,
      [eventId, offered, waiting],
    );
    const before = await snapshot();
    expect(await schema.query(`SELECT to_regclass('ticketing.function_checksums') AS t`)).toEqual([
      { t: null },
    ]);
    const purchaseTakesSeatFor = async () =>
      (
        await schema.query<{ yes: boolean }>(
          `SELECT prosrc LIKE '%take_seat_for%' AS yes FROM pg_proc WHERE oid = 'ticketing.purchase'::regproc`,
        )
      )[0]!.yes;
    expect(await purchaseTakesSeatFor()).toBe(false); // as migration 1764610000000 defined it

    // Today's migrate command: nothing to migrate, every function applied.
    const { dataSource, outbox, database } = schema;
    const applied = await migrateSchema(createTicketingDataSource(database.url, { size: 1 }));
    // The migrations written since (the outbox's claim holders, the chain search of open
    // payments, the followers' seating one occurrence at a time, the outbox's published rows
    // deleted: none here, the old rows wait to be published, the invites, the requests, the codes,
    // the ledger's index by event for the report, the payment ids and receipts of x402's
    // extensions, the consumers' claims under their durables' names), then every function by
    // checksum.
    expect(applied).toEqual([
      'OutboxClaims1767000000000',
      'PaymentSearch1767100000000',
      'FollowerSeating1767230000000',
      'OutboxPublishedDeleted1767500000000',
      'Invites1767600000000',
      'Requests1767700000000',
      'Codes1767800000000',
      'ReportIndexes1767900000000',
      'PaymentExtensions1768000000000',
      'ClaimKeys1768150000000',
      ...dataSource.functions.map((fn) => `function ticketing.${fn.name}`),
    ]);
    // Every row as it was; the columns added since (when an occurrence's followers were seated,
    // who may come, the code of a ticket and of its entries, a ticket's receipt) read "not yet",
    // `open` on each event already there, and no code or receipt.
    const upgraded = await snapshot();
    const rows = upgraded[0] as Record<'events' | 'tickets' | 'ledger', Array<Record<string, unknown>>>;
    for (const event of rows.events) {
      expect(event['followers_seated_at']).toBeNull();
      expect(event['access']).toBe('open');
      delete event['followers_seated_at'];
      delete event['access'];
    }
    for (const row of [...rows.tickets, ...rows.ledger]) {
      expect(row['code']).toBeNull();
      delete row['code'];
    }
    for (const row of rows.tickets) {
      expect(row['receipt']).toBeNull();
      delete row['receipt'];
    }
    expect(upgraded).toEqual(before);
    expect(await functionDrift(dataSource)).toEqual([]);
    expect(await purchaseTakesSeatFor()).toBe(true);
    expect(await migrateSchema(createTicketingDataSource(database.url, { size: 1 }))).toEqual([]);

    // The waitlist as it was, read through today's view of an entry.
    const entries = await schema.query<WaitlistEntryRow>(
      `SELECT ${WAITLIST_ENTRY} FROM ticketing.waitlist w WHERE w.event_id = $1 ORDER BY w.seq`,
      [eventId],
    );
    expect(entries.map(({ entry }) => [entry.agentId, entry.status, entry.position])).toEqual([
      [offered, 'offered', null],
      [waiting, 'waiting', 1],
    ]);

    // Today's purchase on the old rows: the offer made before the upgrade takes its held seat;
    // nobody else finds one.
    const purchase = purchaseCall(dataSource, outbox);
    const payment = (payer: string) => ({
      payer,
      nonce: randomUUID(),
      fingerprint: randomUUID(),
      network: 'ledger:test',
      eventId,
      tierId: 'general',
      hostId: 'host',
      amount: '300',
      asset: 'USDC',
      ticketId: randomUUID(),
      debitId: randomUUID(),
      creditId: randomUUID(),
      at: new Date().toISOString(),
      events: [],
    });
    expect(await purchase(payment(offered))).toMatchObject({ outcome: 'purchased' });
    expect(await purchase(payment(late))).toEqual({ outcome: 'refused', refusal: 'sold_out', detail: null });
    expect(await purchase({ ...payment(buyer), nonce: 'nonce-1' })).toMatchObject({ outcome: 'held' });
    expect(await schema.transaction((manager) => takeSeat(manager, { eventId, tierId: 'general' }))).toEqual({
      outcome: 'refused',
      refusal: 'sold_out',
      detail: null,
    });
    const [after] = await schema.query<{ sold: number; balances: Record<string, string> }>(
      `SELECT e.sold, (SELECT json_object_agg(agent_id, amount::text) FROM ticketing.balances) AS balances
         FROM ticketing.events e WHERE e.event_id = $1`,
      [eventId],
    );
    expect(after).toEqual({
      sold: 2,
      balances: { [buyer]: '700', [offered]: '700', [late]: '1000', host: '600' },
    });
    const [accepted] = await schema.query<{ type: string; data: { agentId: string; status: string } }>(
      `SELECT payload->>'type' AS type, payload->'data' AS data FROM ticketing.outbox ORDER BY seq DESC LIMIT 1`,
    );
    expect(accepted).toEqual({
      type: 'townhall.waitlist.accepted',
      data: expect.objectContaining({ agentId: offered, status: 'accepted' }),
    });
  });
});

import { randomUUID } from 'node:crypto';
import type { EventFieldsInput, EventView, TicketView } from '@townhall/contracts';
import { AgentClient, TownhallError, type Response } from '@townhall/sdk';
import { StandaloneProcess, Topology, problemOf } from '@townhall/testing';
import {
  decodePaymentResponse,
  encodePaymentHeader,
  signLedgerPayment,
  type PaymentRequirements,
} from '@townhall/x402';
import pg from 'pg';

const HOUR = 3_600_000;
/** Standalone signs for a fixed audience: its port is known only once it runs. */
const STANDALONE_AUDIENCE = 'http://townhall.idempotency.test';

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Retried on purpose',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 50,
    ...overrides,
  };
}

/** What a replay must repeat of the first answer. */
const answerOf = (response: Response<unknown>) => ({
  status: response.status,
  body: response.data,
  contentType: response.headers.get('content-type'),
  location: response.headers.get('location'),
  paymentResponse: response.headers.get('x-payment-response'),
  paymentResponseV2: response.headers.get('payment-response'),
});

/**
 * One answer of a race for one key: the request that ran, a replay of it, or 409 in flight
 * (Retry-After: 1). Anything else fails the test.
 */
async function raced<T>(request: Promise<Response<T>>): Promise<'ran' | 'replayed' | 'in_flight'> {
  try {
    const response = await request;
    return response.headers.get('idempotent-replayed') === 'true' ? 'replayed' : 'ran';
  } catch (error) {
    if (!(error instanceof TownhallError) || error.code !== 'idempotency.in_flight') throw error;
    expect([error.status, error.headers.get('retry-after')]).toEqual([409, '1']);
    return 'in_flight';
  }
}

describe('Idempotency-Key at the gateway, shared by its replicas through Redis', () => {
  let topology: Topology;
  let standalone: StandaloneProcess;
  let db: pg.Client;
  /** The second gateway replica's URL (same Redis, same PUBLIC_BASE_URL). */
  let replicaB: string;

  beforeAll(async () => {
    [topology, standalone] = await Promise.all([
      Topology.start({ env: { LEDGER_FAUCET: 'true' } }),
      StandaloneProcess.start({ PUBLIC_BASE_URL: STANDALONE_AUDIENCE }),
    ]);
    replicaB = (await topology.startGateway()).url;
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all([topology?.stop(), standalone?.stop()]);
  });

  /** The same agent on both replicas. */
  function onBoth(agent: AgentClient = topology.client()): [AgentClient, AgentClient] {
    return [agent, new AgentClient({ baseUrl: replicaB, key: agent.key, audience: topology.baseUrl })];
  }
  const eventsOf = async (agent: AgentClient) => (await agent.events.list({ hostId: agent.agentId })).items;

  it('creates one event for one key sent to replica A then B; the replay is the first answer, and another body is 422', async () => {
    const [a, b] = onBoth();
    const key = randomUUID();
    const event = anEvent();
    const first = await a.request<EventView>('POST', '/events', { body: event, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await b.request<EventView>('POST', '/events', { body: event, idempotencyKey: key });
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await eventsOf(a)).map((e) => e.id)).toEqual([first.data.id]);

    const other = await problemOf(
      b.request('POST', '/events', { body: { ...event, title: 'Another' }, idempotencyKey: key }),
    );
    expect([other.status, other.code]).toEqual([422, 'idempotency.key_mismatch']);
    expect(await eventsOf(a)).toHaveLength(1);
    // The SDK's scoped client sends the key on each write: the same answer once more.
    const scoped = await b.withIdempotencyKey(key).events.create(event);
    expect(scoped).toEqual(first.data);
  });

  it('runs exactly one of 20 concurrent sends of one key on two replicas; the others are 409 in flight or the replay', async () => {
    const [a, b] = onBoth();
    const key = randomUUID();
    const event = anEvent({ title: 'Raced' });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        raced(
          (i % 2 === 0 ? a : b).request<EventView>('POST', '/events', { body: event, idempotencyKey: key }),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'ran')).toHaveLength(1);
    expect(await eventsOf(a)).toHaveLength(1);
    // Once it is done, every retry is the replay.
    const replayed = await b.request('POST', '/events', { body: event, idempotencyKey: key });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  describe('a paid RSVP on the ledger', () => {
    let host: AgentClient;
    beforeAll(() => {
      host = topology.client();
    });

    const balanceOf = async (agent: AgentClient) =>
      (await agent.ledger.balance()).balances.find((b) => b.asset === 'USDC')?.amount ?? '0';
    const charges = async (eventId: string, payer: string) =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ticketing.ledger_entries
            WHERE event_id = $1 AND agent_id = $2 AND type = 'EVENT_TICKET'`,
          [eventId, payer],
        )
      ).rows[0]!.n;

    async function paidEvent(): Promise<{ eventId: string; offer: PaymentRequirements }> {
      const event = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '700' } }));
      const asked = await problemOf(
        topology.client().request('POST', `/events/${event.id}/rsvp`, { body: {} }),
      );
      return { eventId: event.id, offer: (asked.problem['accepts'] as PaymentRequirements[])[0]! };
    }

    const rsvp = (agent: AgentClient, eventId: string, key: string, payment?: string) =>
      agent.request<TicketView>('POST', `/events/${eventId}/rsvp`, {
        body: {},
        idempotencyKey: key,
        ...(payment === undefined ? {} : { headers: { 'x-payment': payment } }),
      });

    it('is paid with the key that got the 402, and a retry with a new payment is the replay: one charge, one ticket', async () => {
      const { eventId, offer } = await paidEvent();
      const [a, b] = onBoth();
      await a.ledger.faucet('5000');
      const key = randomUUID();
      // A 402 is not kept: the paying request with the same key runs.
      expect(await problemOf(rsvp(a, eventId, key))).toMatchObject({ status: 402, code: 'payment.required' });
      const paid = await rsvp(b, eventId, key, encodePaymentHeader(signLedgerPayment(a.key, offer)));
      expect(paid.status).toBe(201);
      expect(decodePaymentResponse(paid.headers.get('x-payment-response')!)).toMatchObject({ success: true });

      // The client lost the answer and pays again, with a newly signed payment, on the other replica.
      const retried = await rsvp(a, eventId, key, encodePaymentHeader(signLedgerPayment(a.key, offer)));
      expect(answerOf(retried)).toEqual(answerOf(paid));
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(await balanceOf(a)).toBe('4300');
      expect(await charges(eventId, a.agentId)).toBe(1);
      expect((await a.tickets.mine()).items.filter((t) => t.eventId === eventId)).toHaveLength(1);
    });

    it('charges once for 10 concurrent paying sends of one key, each with its own payment, on two replicas', async () => {
      const { eventId, offer } = await paidEvent();
      const [a, b] = onBoth();
      await a.ledger.faucet('5000');
      const key = randomUUID();
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          raced(
            rsvp(i % 2 === 0 ? a : b, eventId, key, encodePaymentHeader(signLedgerPayment(a.key, offer))),
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'ran')).toHaveLength(1);
      expect(await balanceOf(a)).toBe('4300');
      expect(await charges(eventId, a.agentId)).toBe(1);
    });
  });

  it("keeps one agent's key apart from another's", async () => {
    const [alice] = onBoth();
    const [, bob] = onBoth();
    const key = randomUUID();
    const mine = await alice.request<EventView>('POST', '/events', { body: anEvent(), idempotencyKey: key });
    const theirs = await bob.request<EventView>('POST', '/events', {
      body: anEvent({ title: 'Bob’s' }),
      idempotencyKey: key,
    });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.data.id).not.toBe(mine.data.id);
    expect(theirs.data.hostId).toBe(bob.agentId);
  });

  it('replays in standalone mode too (in memory)', async () => {
    const agent = new AgentClient({ baseUrl: standalone.baseUrl, audience: STANDALONE_AUDIENCE });
    const key = randomUUID();
    const event = anEvent();
    const first = await agent.request<EventView>('POST', '/events', { body: event, idempotencyKey: key });
    const again = await agent.request<EventView>('POST', '/events', { body: event, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(
      await problemOf(
        agent.request('POST', '/events', { body: { ...event, capacity: 3 }, idempotencyKey: key }),
      ),
    ).toMatchObject({
      status: 422,
      code: 'idempotency.key_mismatch',
    });
  });
});

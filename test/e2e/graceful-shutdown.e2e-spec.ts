import type { EventFieldsInput, TicketView } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { Topology, type AppProcess } from '@townhall/testing';
import pg from 'pg';

const HOUR = 3_600_000;
const PRICE = '100';
const BUYERS = 250; // each buys with two signed writes (the 402, then the payment): 500 writes

function aPaidEvent(): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Burst',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 1_000,
    ticketing: { mode: 'single', price: PRICE, asset: 'USDC' },
  };
}

type Outcome = { buyer: AgentClient; ticket?: TicketView; failure?: string; afterInterrupt?: boolean };

/** Every buyer buys at once; once `after` purchases have been answered, `interrupt` runs (without waiting). */
async function burst(
  buyers: AgentClient[],
  eventId: string,
  after: number,
  interrupt: () => void,
): Promise<Outcome[]> {
  let answered = 0;
  return Promise.all(
    buyers.map(async (buyer): Promise<Outcome> => {
      try {
        const { ticket } = await buyer.tickets.rsvp(eventId, { maxPrice: PRICE });
        return { buyer, ticket, afterInterrupt: answered >= after };
      } catch (error) {
        const failure = (error as { code?: string }).code ?? (error as Error).message;
        return { buyer, failure, afterInterrupt: answered >= after };
      } finally {
        if (++answered === after) interrupt();
      }
    }),
  );
}

/** What the database says: nothing half-done, and every acknowledged purchase whole. */
async function checkTicketing(db: pg.Client, eventId: string, outcomes: Outcome[]): Promise<void> {
  const { rows: invariants } = await db.query<Record<string, number | string>>(
    `SELECT
       (SELECT count(*) FROM ticketing.tickets WHERE status = 'pending')::int AS pending_tickets,
       (SELECT count(*) FROM ticketing.tickets WHERE event_id = $1 AND status = 'active')::int AS active_tickets,
       (SELECT sold FROM ticketing.events WHERE event_id = $1) AS event_sold,
       (SELECT sum(sold) FROM ticketing.inventory WHERE event_id = $1)::int AS tier_sold,
       (SELECT count(*) FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount < 0)::int AS debits,
       (SELECT count(*) FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount > 0)::int AS credits,
       (SELECT count(*) FROM ticketing.payments WHERE event_id = $1 AND ticket_id IS NULL)::int AS payments_without_ticket,
       (SELECT COALESCE(sum(amount), 0) FROM ticketing.balances)::text AS balances,
       (SELECT COALESCE(sum(amount), 0) FROM ticketing.ledger_entries WHERE type = 'FAUCET')::text AS faucet`,
    [eventId],
  );
  const state = invariants[0]!;
  expect(state['pending_tickets']).toBe(0);
  expect(state['event_sold']).toBe(state['active_tickets']);
  expect(state['tier_sold']).toBe(state['active_tickets']);
  expect(state['debits']).toBe(state['active_tickets']);
  expect(state['credits']).toBe(state['active_tickets']);
  expect(state['payments_without_ticket']).toBe(0);
  expect(state['balances']).toBe(state['faucet']);

  const { rows: tickets } = await db.query<{ id: string; holder_id: string }>(
    `SELECT id, holder_id FROM ticketing.tickets WHERE event_id = $1 AND status = 'active'`,
    [eventId],
  );
  const stored = new Map(tickets.map((row) => [row.holder_id, row.id]));
  const acknowledged = outcomes.filter((outcome) => outcome.ticket);
  // Every 201/200 the client saw is a ticket in the database, with its own id.
  for (const outcome of acknowledged) expect(stored.get(outcome.buyer.agentId)).toBe(outcome.ticket!.id);
  // Each refused purchase failed in the clean ways only: the server stopping, or unreachable.
  for (const outcome of outcomes.filter((item) => item.failure)) {
    expect(outcome.failure).toMatch(
      /^(service\.unavailable|service\.timeout|fetch failed|.*ECONNREFUSED.*|.*other side closed.*|.*socket.*)$/i,
    );
  }
}

async function fundedBuyers(topology: Topology): Promise<AgentClient[]> {
  const buyers = Array.from({ length: BUYERS }, () => topology.client());
  for (let index = 0; index < buyers.length; index += 50) {
    await Promise.all(buyers.slice(index, index + 50).map((buyer) => buyer.ledger.faucet('1000')));
  }
  return buyers;
}

describe('graceful shutdown: SIGTERM during a burst of 500 signed writes', () => {
  let topology: Topology | undefined;
  let db: pg.Client | undefined;

  afterEach(async () => {
    await db?.end();
    await topology?.stop();
    db = topology = undefined;
  });

  async function start(): Promise<{ topology: Topology; db: pg.Client }> {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
    return { topology, db };
  }

  it('the gateway finishes what it accepted: no acknowledged purchase lost, none half-done', async () => {
    const { topology, db } = await start();
    const host = topology.client();
    const event = await host.events.create(aPaidEvent());
    const buyers = await fundedBuyers(topology);
    let stopping: Promise<number | null> | undefined;
    const outcomes = await burst(buyers, event.id, 40, () => {
      stopping = topology.gateway.stop();
    });
    const code = await stopping;
    if (code !== 0) {
      const logs = topology.gateway.logs.slice(-12).join('\n');
      throw new Error(`the gateway exited with ${code}:\n${logs}`);
    }
    expect(code).toBe(0); // a clean exit: in-flight requests finished first
    expect(outcomes.filter((outcome) => outcome.ticket).length).toBeGreaterThanOrEqual(40);
    await checkTicketing(db, event.id, outcomes);
  });

  it('a service drains its subscription and finishes its handlers before closing the database', async () => {
    const { topology, db } = await start();
    const host = topology.client();
    const event = await host.events.create(aPaidEvent());
    const buyers = await fundedBuyers(topology);
    let stopping: Promise<number | null> | undefined;
    const ticketing: AppProcess = topology.service('ticketing');
    const outcomes = await burst(buyers, event.id, 40, () => {
      stopping = ticketing.stop();
    });
    expect(await stopping).toBe(0);
    const served = outcomes.filter((outcome) => outcome.ticket).length;
    expect(served).toBeGreaterThanOrEqual(40);
    // The stop really happened during the burst: purchases still in flight when the signal went
    // were finished by the draining service (all of them, when they had all reached it already).
    const servedWhileStopping = outcomes.filter((outcome) => outcome.ticket && outcome.afterInterrupt).length;
    expect(servedWhileStopping).toBeGreaterThan(0);
    await checkTicketing(db, event.id, outcomes);

    // Back up: the ones turned away can buy now, and nothing was left behind for them.
    await topology.restartService('ticketing');
    const turnedAway = outcomes.filter((outcome) => !outcome.ticket).slice(0, 10);
    const newcomer = topology.client();
    await newcomer.ledger.faucet('1000');
    const later = [...turnedAway.map((outcome) => outcome.buyer), newcomer];
    const bought = await Promise.all(later.map((buyer) => buyer.tickets.rsvp(event.id, { maxPrice: PRICE })));
    await checkTicketing(db, event.id, [
      ...outcomes.filter((outcome) => outcome.ticket),
      ...later.map((buyer, index) => ({ buyer, ticket: bought[index]!.ticket })),
    ]);
  });
});

import type { TicketView } from '@townhall/contracts';
import type { AgentClient, RsvpTicketResult } from '@townhall/sdk';
import { Topology, type AppProcess } from '@townhall/testing';
import pg from 'pg';
import { aPaidEvent, expectTicketingWhole, fundedAgents, PRICE } from './faults/workload.js';

const BUYERS = 250; // each buys with two signed writes (the 402, then the payment): 500 writes

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
        const { ticket } = (await buyer.tickets.rsvp(eventId, { maxPrice: PRICE })) as RsvpTicketResult;
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
  await expectTicketingWhole(
    db,
    eventId,
    outcomes
      .filter((outcome) => outcome.ticket)
      .map((outcome) => ({ holderId: outcome.buyer.agentId, ticketId: outcome.ticket!.id })),
  );
  // Each refused purchase failed in the clean ways only: the server stopping, or unreachable.
  for (const outcome of outcomes.filter((item) => item.failure)) {
    expect(outcome.failure).toMatch(
      /^(service\.unavailable|service\.timeout|fetch failed|.*ECONNREFUSED.*|.*other side closed.*|.*socket.*)$/i,
    );
  }
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
    const buyers = await fundedAgents(topology, BUYERS);
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
    const buyers = await fundedAgents(topology, BUYERS);
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
    const bought = (await Promise.all(
      later.map((buyer) => buyer.tickets.rsvp(event.id, { maxPrice: PRICE })),
    )) as RsvpTicketResult[];
    await checkTicketing(db, event.id, [
      ...outcomes.filter((outcome) => outcome.ticket),
      ...later.map((buyer, index) => ({ buyer, ticket: bought[index]!.ticket })),
    ]);
  });
});

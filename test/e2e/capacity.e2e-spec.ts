import type { EventFieldsInput, EventView, TicketView } from '@townhall/contracts';
import { TownhallError, type AgentClient } from '@townhall/sdk';
import { Topology, problemOf, waitFor } from '@townhall/testing';
import pg from 'pg';

/*
 * README "Events": capacity never drops below the tickets already sold. The seats live in ticketing,
 * so ticketing decides every capacity change, under the locks a purchase takes; these tests run
 * the races for real in the distributed topology (separate processes, Postgres, NATS, Redis).
 */

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Capacity under pressure',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 30,
    ...overrides,
  };
}

/** Status and code of a request's outcome, for counting. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof TownhallError) return `${error.status} ${error.code}`;
    throw error;
  }
}

describe('capacity is decided where the seats are', () => {
  let topology: Topology;
  let db: pg.Client;
  let host: AgentClient;

  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
    host = topology.client();
  });
  afterAll(async () => {
    await db?.end();
    await topology?.stop();
  });

  const patch = (eventId: string, changes: Partial<EventFieldsInput>) =>
    host.request<EventView>('PATCH', `/events/${eventId}`, { body: changes });
  const rsvp = (agent: AgentClient, eventId: string, body: object = {}) =>
    agent.request<TicketView>('POST', `/events/${eventId}/rsvp`, { body });

  /** What both services hold for the event, once the events service has caught up. */
  async function settled(eventId: string) {
    return waitFor(
      'both services at the same event version',
      async () => {
        const { rows } = await db.query<{
          events_capacity: number;
          ticketing_capacity: number;
          ticketing_sold: number;
          live: string;
          events_version: number;
          ticketing_version: number;
        }>(
          `SELECT e.capacity AS events_capacity, e.version AS events_version,
                t.capacity AS ticketing_capacity, t.sold AS ticketing_sold, t.version AS ticketing_version,
                (SELECT count(*) FROM ticketing.tickets k WHERE k.event_id = e.id AND k.status <> 'cancelled') AS live
         FROM events.events e JOIN ticketing.events t ON t.event_id = e.id WHERE e.id = $1`,
          [eventId],
        );
        const row = rows[0];
        if (!row || row.events_version !== row.ticketing_version) return undefined;
        return {
          eventsCapacity: row.events_capacity,
          ticketingCapacity: row.ticketing_capacity,
          ticketingSold: row.ticketing_sold,
          liveTickets: Number(row.live),
        };
      },
      10_000,
    );
  }

  it('refuses a capacity below the tickets sold with 409 event.capacity_below_sold, and allows one at it', async () => {
    const event = await host.events.create(anEvent({ capacity: 50 }));
    const guests = Array.from({ length: 15 }, () => topology.client());
    const answers = await Promise.all(guests.map((guest) => rsvp(guest, event.id)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(15).fill(201));

    const refused = await problemOf(patch(event.id, { capacity: 6 }));
    expect([refused.status, refused.code]).toEqual([409, 'event.capacity_below_sold']);
    expect((await host.events.get(event.id)).capacity).toBe(50);

    expect((await patch(event.id, { capacity: 15 })).data.capacity).toBe(15);
    const late = await problemOf(rsvp(topology.client(), event.id));
    expect(late.code).toBe('capacity.sold_out');
    expect(await settled(event.id)).toEqual({
      eventsCapacity: 15,
      ticketingCapacity: 15,
      ticketingSold: 15,
      liveTickets: 15,
    });
  });

  it('holds per tier too: a tier cannot shrink below what it sold', async () => {
    const tiers = (vip: number) => ({
      mode: 'tiered' as const,
      tiers: [
        { id: 'vip', name: 'VIP', price: '100', capacity: vip },
        { id: 'std', name: 'Standard', price: '10', capacity: 10 },
      ],
    });
    const event = await host.events.create(anEvent({ capacity: 20, ticketing: tiers(5) }));
    // Three VIP tickets, paid on the ledger.
    for (let index = 0; index < 3; index += 1) {
      const buyer = topology.client();
      await buyer.ledger.faucet('1000');
      await buyer.tickets.rsvp(event.id, { tierId: 'vip', maxPrice: '100' });
    }
    const refused = await problemOf(patch(event.id, { ticketing: tiers(2) }));
    expect([refused.status, refused.code]).toEqual([409, 'event.capacity_below_sold']);
    expect((await patch(event.id, { ticketing: tiers(3) })).status).toBe(200);
    // VIP is full at 3: the 402 offers only the standard tier.
    const offer = await problemOf(rsvp(topology.client(), event.id, { tierId: 'vip' }));
    expect(offer.status).toBe(402);
    const accepts = offer.problem['accepts'] as Array<{ extra: { tierId: string } }>;
    expect(accepts.map((a) => a.extra.tierId)).toEqual(['std']);
  });

  it('answers an RSVP without payment to a sold-out paid event 409 capacity.sold_out, like a paid one', async () => {
    const event = await host.events.create(
      anEvent({ capacity: 1, ticketing: { mode: 'single', price: '100' } }),
    );
    const first = topology.client();
    await first.ledger.faucet('1000');
    await first.tickets.rsvp(event.id, { maxPrice: '100' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => outcome(rsvp(topology.client(), event.id))),
    );
    expect(answers).toEqual(Array(20).fill('409 capacity.sold_out'));
  });

  it('keeps live tickets within capacity however PATCHes and RSVPs interleave: 30 against 30, 20 times', async () => {
    for (let round = 0; round < 20; round += 1) {
      const event = await host.events.create(anEvent({ capacity: 30 }));
      const guests = Array.from({ length: 30 }, () => topology.client());
      // Capacities from 5 to 30 in a shuffled order, interleaved with the RSVPs.
      const capacities = Array.from({ length: 30 }, (_, index) => 5 + ((index * 7 + round) % 26));
      const work: Array<Promise<string>> = [];
      for (let index = 0; index < 30; index += 1) {
        work.push(outcome(rsvp(guests[index]!, event.id)));
        work.push(outcome(patch(event.id, { capacity: capacities[index]! })));
      }
      const outcomes = await Promise.all(work);
      const unexpected = outcomes.filter(
        (o) => !['ok', '409 capacity.sold_out', '409 event.capacity_below_sold'].includes(o),
      );
      expect(unexpected).toEqual([]);

      const state = await settled(event.id);
      expect(state.liveTickets).toBe(state.ticketingSold);
      expect(state.liveTickets).toBeLessThanOrEqual(state.eventsCapacity);
      expect(state.ticketingCapacity).toBe(state.eventsCapacity);
      // What the API shows agrees with the database.
      const shown = await host.events.get(event.id);
      expect(shown.capacity).toBe(state.eventsCapacity);
      expect(shown.capacity).toBeGreaterThanOrEqual(state.liveTickets);
    }
  });
});

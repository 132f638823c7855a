// A burst of PATCHes to one event: each is decided by ticketing once, not retried against the
// others (the service tier: libs/testing/src/service.ts; ticketing is a stand-in here, the
// distributed race with the real one is test/e2e/capacity.e2e-spec.ts).
import { generateAgentKey } from '@townhall/auth';
import { Events, Inventory, type EventView } from '@townhall/contracts';
import { ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('events service: a burst of PATCHes to one event', () => {
  let events: ServiceHarness;
  const host = agent();
  /** Ticketing as the stand-in keeps it: the version and capacity it last decided, per event. */
  const decided = new Map<string, { version: number; capacity: number }>();
  let decisions = 0;

  beforeAll(async () => {
    events = await ServiceHarness.start(eventsService);
    // As ticketing decides (EventsProjection.changeCapacity): applied unless it holds a newer version.
    events.answer(Inventory.changeCapacity, async (change) => {
      decisions += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
      const held = decided.get(change.eventId);
      if (held && held.version > change.version) return { eventId: change.eventId, applied: false };
      decided.set(change.eventId, { version: change.version, capacity: change.capacity });
      return { eventId: change.eventId, applied: true };
    });
  });
  afterAll(async () => {
    await events?.stop();
  });

  it('decides each of 30 concurrent capacity changes once, and records them all', async () => {
    const event = await events.send(
      Events.create,
      { title: 'Burst', startsAt: inHours(24), endsAt: inHours(25), timezone: 'UTC', capacity: 10 },
      host,
    );
    decisions = 0;
    const capacities = Array.from({ length: 30 }, (_, index) => 11 + index);
    const views: EventView[] = await Promise.all(
      capacities.map((capacity) =>
        events.send(Events.update, { eventId: event.id, changes: { capacity } }, host),
      ),
    );
    expect(decisions).toBe(30);
    // Recorded one after another, in the order they came: versions 2 to 31.
    expect(views.map((view) => [view.version, view.capacity])).toEqual(
      capacities.map((capacity, index) => [index + 2, capacity]),
    );
    const final = await events.send(Events.get, { eventId: event.id });
    expect(final.version).toBe(31);
    expect(decided.get(event.id)).toEqual({ version: 31, capacity: final.capacity });
  });
});

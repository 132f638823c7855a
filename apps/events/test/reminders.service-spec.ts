// The events service reminds of events about to start (`townhall.event.starting_soon`), from its
// periodic job on every replica (the service tier: libs/testing/src/service.ts).
import { generateAgentKey } from '@townhall/auth';
import { Events, EventTopics, type EventView } from '@townhall/contracts';
import { ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const MINUTE = 60_000;
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * MINUTE).toISOString();

describe('events service: reminders before an event starts', () => {
  let events: ServiceHarness;
  const host = agent();

  /** The starting_soon announcements so far, of the events given. */
  const reminders = (...eventIds: string[]): EventView[] =>
    events.published
      .filter((event) => event.type === EventTopics.startingSoon && eventIds.includes(event.subject!))
      .map((event) => event.data as EventView);
  /** Waits for `count` reminders of `eventIds`, then a few more runs of the job to see no more come. */
  const remindedTimes = async (count: number, ...eventIds: string[]): Promise<EventView[]> => {
    const deadline = Date.now() + 10_000;
    while (reminders(...eventIds).length < count && Date.now() < deadline) await sleep(25);
    await sleep(300);
    return reminders(...eventIds);
  };
  const create = (minutesAway: number, title = 'Soon') =>
    events.send(
      Events.create,
      {
        title,
        startsAt: inMinutes(minutesAway),
        endsAt: inMinutes(minutesAway + 60),
        timezone: 'UTC',
        capacity: 10,
      },
      host,
    );

  beforeAll(async () => {
    // Every 50 ms, 15 minutes ahead (the default lead). One host makes 250 events here, more than
    // an agent may host at once (EVENTS_PER_HOST_LIMIT; host-limits.service-spec.ts holds it).
    events = await ServiceHarness.start(eventsService, {
      EVENT_REMINDER_INTERVAL_MS: '50',
      EVENTS_PER_HOST_LIMIT: '1000',
    });
  });
  afterAll(async () => {
    await events?.stop();
  });

  it('announces an event starting within the lead once, and not one further out', async () => {
    const soon = await create(10);
    const later = await create(120);
    const [reminder, ...more] = await remindedTimes(1, soon.id, later.id);
    expect(more).toEqual([]);
    expect(reminder).toEqual({ ...soon, updatedAt: reminder!.updatedAt });
    expect(reminder!.version).toBe(soon.version);
    expect(events.offCatalog()).toEqual([]);
  });

  it('reminds again when a PATCH moves the start, and not for any other edit', async () => {
    const event = await create(10);
    expect(await remindedTimes(1, event.id)).toHaveLength(1);
    await events.send(Events.update, { eventId: event.id, changes: { title: 'Renamed' } }, host);
    expect(await remindedTimes(1, event.id)).toHaveLength(1);

    // Moved out of the lead: nothing until it comes near again; moved back in: reminded again.
    const moved = await events.send(
      Events.update,
      { eventId: event.id, changes: { startsAt: inMinutes(90), endsAt: inMinutes(150) } },
      host,
    );
    expect(await remindedTimes(1, event.id)).toHaveLength(1);
    const back = await events.send(
      Events.update,
      { eventId: event.id, changes: { startsAt: inMinutes(5), endsAt: inMinutes(65) } },
      host,
    );
    const all = await remindedTimes(2, event.id);
    expect(all.map((view) => view.startsAt)).toEqual([event.startsAt, back.startsAt]);
    expect(all[1]!.title).toBe('Renamed');
    expect(moved.startsAt).not.toBe(back.startsAt);
  });

  it('never reminds of an event that has started or was cancelled, or whose start has passed', async () => {
    const started = await create(60);
    const cancelled = await create(60);
    const passed = await create(60);
    await events.send(Events.transition, { eventId: started.id, action: 'start' }, host);
    await events.send(Events.transition, { eventId: cancelled.id, action: 'cancel' }, host);
    // Time moves on: two come within the lead after they left `scheduled`, one is already past.
    await events.query(
      `UPDATE events.events SET starts_at = now() + interval '5 minutes' WHERE id = ANY($1::uuid[])`,
      [[started.id, cancelled.id]],
    );
    await events.query(`UPDATE events.events SET starts_at = now() - interval '1 minute' WHERE id = $1`, [
      passed.id,
    ]);
    expect(await remindedTimes(0, started.id, cancelled.id, passed.id)).toEqual([]);
  });

  it('reminds of each event exactly once with three replicas racing, a batch of 100 at a time', async () => {
    await events.startReplica();
    await events.startReplica();
    const many = await Promise.all(Array.from({ length: 250 }, (_, index) => create(120, `Many ${index}`)));
    const ids = many.map((event) => event.id);
    // All 250 come within the lead at once: three replicas, each every 50 ms, race for them.
    await events.query(
      `UPDATE events.events SET starts_at = now() + interval '10 minutes', ends_at = now() + interval '70 minutes'
       WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const reminded = await remindedTimes(250, ...ids);
    expect(reminded.map((view) => view.id).sort()).toEqual([...ids].sort());
    expect(events.offCatalog()).toEqual([]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

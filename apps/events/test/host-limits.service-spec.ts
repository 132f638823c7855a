// What one agent may host at once (src/events/host-limits.ts), and the order GET /events lists
// in (events with a ticket holder first), on the events service's tier against real Postgres.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import {
  Events,
  Series,
  TicketTopics,
  type CloudEvent,
  type EventView,
  type Page,
} from '@townhall/contracts';
import { anIssuedTicketView, waitFor } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('events service: what one agent hosts, and the order events are listed in', () => {
  let events: ServiceHarness;

  beforeAll(async () => {
    events = await ServiceHarness.start(eventsService);
  });
  afterAll(async () => {
    await events?.stop();
  });

  const createEvent = (host: string, hoursAhead = 24, title = 'AMA') =>
    events.send(
      Events.create,
      {
        title,
        startsAt: inHours(hoursAhead),
        endsAt: inHours(hoursAhead + 1),
        timezone: 'UTC',
        capacity: 10,
      },
      host,
    );
  const createSeries = (host: string, title = 'Weekly') =>
    events.send(
      Series.create,
      {
        title,
        description: '',
        recurrence: { startsAt: '2030-03-04T19:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=3' },
        template: { durationMinutes: 60, capacity: 50 },
      },
      host,
    );
  const codeOf = async (request: Promise<unknown>) => (await refusalOf(request)).code;

  it('refuses a 51st scheduled or live event of one host, and of 10 creates at once for the 50th place exactly one wins', async () => {
    const host = agent();
    const first: EventView[] = [];
    for (let index = 0; index < 49; index += 1) first.push(await createEvent(host, 24 + index));
    // Ten at once for the last place: the host's lock counts them one after another.
    const racing = await Promise.allSettled(Array.from({ length: 10 }, () => createEvent(host, 100)));
    expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of racing)
      if (outcome.status === 'rejected')
        expect((await refusalOf(Promise.reject(outcome.reason))).code).toBe('event.limit_reached');
    const refusal = await refusalOf(createEvent(host));
    expect([refusal.code, refusal.status]).toEqual(['event.limit_reached', 409]);
    expect((await events.send(Events.list, { hostId: host, limit: 100 })).items).toHaveLength(50);

    // A live event still counts; a cancelled or ended one frees its place.
    await events.send(Events.transition, { eventId: first[0]!.id, action: 'start' }, host);
    expect(await codeOf(createEvent(host))).toBe('event.limit_reached');
    await events.send(Events.transition, { eventId: first[0]!.id, action: 'end' }, host);
    const freed = await createEvent(host);
    expect(freed.hostId).toBe(host);
    await events.send(Events.transition, { eventId: first[1]!.id, action: 'cancel' }, host);
    await createEvent(host);
    expect(await codeOf(createEvent(host))).toBe('event.limit_reached');

    // Others are not held back, and a series' occurrences are the series limit's to bound.
    expect((await createEvent(agent())).status).toBe('scheduled');
    expect((await createSeries(host)).upcoming.length).toBeGreaterThan(0);
  });

  it('refuses an 11th series of one host not ended, and of 5 creates at once for the 10th place exactly one wins', async () => {
    const host = agent();
    for (let index = 0; index < 9; index += 1) await createSeries(host, `Series ${index}`);
    const racing = await Promise.allSettled(Array.from({ length: 5 }, () => createSeries(host, 'Last')));
    expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refusal = await refusalOf(createSeries(host, 'Eleventh'));
    expect([refusal.code, refusal.status]).toEqual(['series.limit_reached', 409]);
    const held = (await events.send(Series.list, { hostId: host, limit: 100 })).items;
    expect(held).toHaveLength(10);
    // An ended series frees its place.
    await events.send(Series.end, { seriesId: held[0]!.id }, host);
    expect((await createSeries(host, 'In its place')).title).toBe('In its place');
    expect(await codeOf(createSeries(host, 'One too many'))).toBe('series.limit_reached');
    // One-off events are counted apart.
    expect((await createEvent(host)).status).toBe('scheduled');
  });

  it('lists events someone holds a ticket in first, each part by start, a page at a time; a tampered cursor is 400', async () => {
    const host = agent();
    // Four events by start: a, b, c, d. Tickets are held in c and d only.
    const [a, , c, d] = [
      await createEvent(host, 10, 'a'),
      await createEvent(host, 11, 'b'),
      await createEvent(host, 12, 'c'),
      await createEvent(host, 13, 'd'),
    ];
    const issued = (eventId: string): CloudEvent => ({
      specversion: '1.0',
      id: randomUUID(),
      source: 'test',
      type: TicketTopics.issued,
      time: new Date().toISOString(),
      subject: eventId,
      datacontenttype: 'application/json',
      data: anIssuedTicketView(eventId, agent()),
    });
    await events.deliver(issued(d.id));
    await events.deliver(issued(c.id));
    const titles = (page: Page<EventView>) => page.items.map((event) => event.title);
    await waitFor('both counted', async () => {
      const page = await events.send(Events.list, { hostId: host, limit: 10 });
      return titles(page).join('') === 'cdab' ? true : undefined;
    });

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await events.send(Events.list, { hostId: host, limit: 1, ...(cursor ? { cursor } : {}) });
      pages.push(titles(page));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual([['c'], ['d'], ['a'], ['b']]);
    const scheduled = await events.send(Events.list, { hostId: host, status: 'scheduled', limit: 3 });
    expect(titles(scheduled)).toEqual(['c', 'd', 'a']);
    expect(
      titles(
        await events.send(Events.list, { hostId: host, status: 'scheduled', cursor: scheduled.nextCursor! }),
      ),
    ).toEqual(['b']);

    // A cursor is [rank, startsAt, id]: another rank, the shape before ranks, or bytes changed are 400.
    const page = await events.send(Events.list, { hostId: host, limit: 1 });
    const [rank, startsAt, id] = JSON.parse(
      Buffer.from(page.nextCursor!, 'base64url').toString(),
    ) as unknown[];
    expect([rank, startsAt, id]).toEqual([0, c.startsAt, c.id]);
    const forged = (position: unknown[]) => Buffer.from(JSON.stringify(position)).toString('base64url');
    for (const cursor of [
      forged([2, startsAt, id]),
      forged([-1, startsAt, id]),
      forged([startsAt, id]),
      forged([0, startsAt, id, 1]),
      `${page.nextCursor!}A`,
    ]) {
      const refusal = await refusalOf(events.send(Events.list, { hostId: host, cursor }));
      expect([cursor, refusal.code, refusal.status]).toEqual([cursor, 'validation.failed', 400]);
    }
    expect(
      titles(await events.send(Events.list, { hostId: host, cursor: forged([1, a.startsAt, a.id]) })),
    ).toEqual(['b']);
  });
});

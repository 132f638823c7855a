import ICAL from 'ical.js';
import {
  domainEventCatalog,
  Events,
  EventTopics,
  type EventFieldsInput,
  type EventView,
  type SeriesView,
} from '@townhall/contracts';
import { NatsServiceClient } from '@townhall/platform';
import { TownhallError, type AgentClient } from '@townhall/sdk';
import { DomainEventTap, Topology, problemOf } from '@townhall/testing';

const HOUR = 3_600_000;

/** A valid event starting `inHours` from now. */
function anEvent(overrides: Partial<EventFieldsInput> = {}, inHours = 24): EventFieldsInput {
  const startsAt = new Date(Date.now() + inHours * HOUR);
  return {
    title: 'Community townhall',
    description: 'Monthly update and open questions',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'Europe/Berlin',
    capacity: 100,
    ...overrides,
  };
}

describe('events, end to end', () => {
  let topology: Topology;
  let host: AgentClient;
  let other: AgentClient;

  beforeAll(async () => {
    // These tests page through hundreds of one host's events and race 50 more: more than an agent
    // may host at once (EVENTS_PER_HOST_LIMIT, 50; test/e2e/abuse-limits.e2e-spec.ts proves it).
    topology = await Topology.start({ serviceEnv: { events: { EVENTS_PER_HOST_LIMIT: '1000' } } });
    host = topology.client();
    other = topology.client();
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('schedules an event (201, caller is host) and serves it publicly', async () => {
    const created = await host.request<EventView>('POST', '/events', {
      body: anEvent({
        moderators: [other.agentId],
        agenda: [
          { title: 'Welcome', startOffsetMinutes: 0, durationMinutes: 10, speakerIds: [other.agentId] },
        ],
        ticketing: { mode: 'tiered', tiers: [{ id: 'vip', name: 'VIP', price: '2500000', capacity: 10 }] },
      }),
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      hostId: host.agentId,
      status: 'scheduled',
      moderators: [other.agentId],
      ticketing: { mode: 'tiered', asset: 'USDC', tiers: [{ id: 'vip', price: '2500000', capacity: 10 }] },
      counts: { ticketsSold: {}, questions: 0, polls: 0 },
      seriesId: null,
      startedAt: null,
    });
    const read = await fetch(`${topology.baseUrl}/events/${created.data.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created.data);
  });

  it.each([
    ['title', { title: '' }],
    ['title', { title: 'x'.repeat(201) }],
    ['startsAt', { startsAt: 'tomorrow' }],
    ['startsAt', { startsAt: '2020-01-01T10:00:00Z', endsAt: '2020-01-01T11:00:00Z' }],
    ['endsAt', { endsAt: new Date(Date.now() + 1000).toISOString() }],
    ['timezone', { timezone: 'Mars/Olympus_Mons' }],
    ['capacity', { capacity: 0 }],
    ['capacity', { capacity: 1_000_001 }],
    ['capacity', { capacity: 2.5 }],
    ['moderators.0', { moderators: ['not-an-agent-id'] }],
    ['ticketing.price', { ticketing: { mode: 'single', price: '1.50' } }],
    ['ticketing.price', { ticketing: { mode: 'single', price: '-5' } }],
    ['ticketing.mode', { ticketing: { mode: 'auction' } }],
    ['ticketing.tiers', { ticketing: { mode: 'tiered', tiers: [] } }],
    [
      'ticketing.tiers',
      {
        ticketing: {
          mode: 'tiered',
          tiers: Array.from({ length: 11 }, (_, i) => ({ id: `t${i}`, name: 'T', price: '1', capacity: 1 })),
        },
      },
    ],
    [
      'ticketing.tiers.0.capacity',
      { ticketing: { mode: 'tiered', tiers: [{ id: 'a', name: 'A', price: '1', capacity: 101 }] } },
    ],
    [
      'ticketing.tiers.1.id',
      {
        ticketing: {
          mode: 'tiered',
          tiers: [
            { id: 'a', name: 'A', price: '1', capacity: 1 },
            { id: 'a', name: 'B', price: '2', capacity: 1 },
          ],
        },
      },
    ],
    ['agenda.0.title', { agenda: [{ title: '' }] }],
    ['agenda.0', { agenda: [{ title: 'Too long', startOffsetMinutes: 30, durationMinutes: 60 }] }],
    [
      'agenda.0.speakerIds.0',
      { agenda: [{ title: 'Talk', speakerIds: ['11111111111111111111111111111112'] }] },
    ],
    ['(body)', { colour: 'red' }],
  ] as Array<[string, Record<string, unknown>]>)(
    'rejects a bad %s with 400 and a field error',
    async (field, overrides) => {
      const error = await problemOf(host.events.create({ ...anEvent(), ...overrides } as EventFieldsInput));
      expect(error.status).toBe(400);
      expect(error.code).toBe('validation.failed');
      expect(error.problem.errors?.map((e) => e.field)).toContain(field);
    },
  );

  it('lets only the host start, end, cancel or edit (403 role.forbidden)', async () => {
    const event = await host.events.create(anEvent());
    for (const attempt of [
      other.events.start(event.id),
      other.events.end(event.id),
      other.events.cancel(event.id),
      other.events.update(event.id, { title: 'Mine now' }),
    ]) {
      expect(await problemOf(attempt)).toMatchObject({ status: 403, code: 'role.forbidden' });
    }
    expect(await problemOf(other.events.start('00000000-0000-4000-8000-000000000000'))).toMatchObject({
      status: 404,
      code: 'event.not_found',
    });
    expect(await problemOf(other.events.get('not-an-id'))).toMatchObject({
      status: 404,
      code: 'event.not_found',
    });
  });

  it('walks the lifecycle and answers every illegal transition with 409', async () => {
    const event = await host.events.create(anEvent());
    expect(await problemOf(host.events.end(event.id))).toMatchObject({
      status: 409,
      code: 'event.invalid_transition',
    });
    expect(await host.events.start(event.id)).toMatchObject({
      status: 'live',
      startedAt: expect.any(String),
    });
    expect(await problemOf(host.events.start(event.id))).toMatchObject({ status: 409 });
    expect(await problemOf(host.events.cancel(event.id))).toMatchObject({ status: 409 });
    expect(await problemOf(host.events.update(event.id, { title: 'Late' }))).toMatchObject({
      status: 409,
      code: 'event.not_editable',
    });
    expect(await host.events.end(event.id)).toMatchObject({ status: 'past', endedAt: expect.any(String) });
    for (const action of ['start', 'end', 'cancel'] as const) {
      expect(await problemOf(host.events[action](event.id))).toMatchObject({
        status: 409,
        code: 'event.invalid_transition',
      });
    }

    const cancelled = await host.events.create(anEvent());
    expect(await host.events.cancel(cancelled.id)).toMatchObject({
      status: 'cancelled',
      cancelledAt: expect.any(String),
    });
    for (const action of ['start', 'end', 'cancel'] as const) {
      expect(await problemOf(host.events[action](cancelled.id))).toMatchObject({ status: 409 });
    }
  });

  it('answers the role query other services ask over NATS', async () => {
    const speaker = topology.client();
    const event = await host.events.create(
      anEvent({ moderators: [other.agentId], speakers: [speaker.agentId] }),
    );
    // As ticketing asks it (its NATS user may send events.event.access).
    const nats = await topology.connectNats('ticketing');
    try {
      const services = new NatsServiceClient(nats, 2_000);
      const ask = (agentId: string) =>
        services.send(Events.access, { eventId: event.id, agentId }, { requestId: 'e2e', caller: null });
      expect(await ask(host.agentId)).toMatchObject({
        eventId: event.id,
        status: 'scheduled',
        role: 'host',
        hostId: host.agentId,
      });
      expect(await ask(other.agentId)).toMatchObject({ role: 'moderator' });
      expect(await ask(speaker.agentId)).toMatchObject({ role: 'speaker' });
      expect(await ask(topology.client().agentId)).toMatchObject({
        role: null,
        capacity: 100,
        ticketing: { mode: 'free' },
      });
      await host.events.start(event.id);
      expect(await ask(other.agentId)).toMatchObject({ status: 'live' });
    } finally {
      await nats.close();
    }
  });

  it('edits a scheduled event and re-checks the rules on the merged result', async () => {
    const event = await host.events.create(anEvent());
    const edited = await host.events.update(event.id, { title: 'Renamed', capacity: 20 });
    expect(edited).toMatchObject({ title: 'Renamed', capacity: 20, startsAt: event.startsAt });
    const bad = await problemOf(host.events.update(event.id, { endsAt: event.startsAt }));
    expect(bad).toMatchObject({ status: 400, code: 'validation.failed' });
    expect(bad.problem.errors?.[0]?.field).toBe('endsAt');
  });

  it('lets exactly one of a racing start and cancel win, 50 times', async () => {
    const events = await Promise.all(Array.from({ length: 50 }, () => host.events.create(anEvent())));
    const outcomes = await Promise.all(
      events.map(async (event) => {
        const results = await Promise.allSettled([host.events.start(event.id), host.events.cancel(event.id)]);
        const winners = results.filter((r) => r.status === 'fulfilled');
        const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        const final = await host.events.get(event.id);
        return {
          winners: winners.length,
          loserCodes: losers.map((l) => (l.reason as TownhallError).code),
          final: final.status,
        };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome.winners).toBe(1);
      expect(outcome.loserCodes).toEqual(['event.invalid_transition']);
      expect(['live', 'cancelled']).toContain(outcome.final);
    }
  });

  it('pages through 250 events with no duplicates or gaps while new ones are inserted', async () => {
    const pager = topology.client();
    const base = Date.now() + 48 * HOUR;
    const originals: EventView[] = [];
    for (let batch = 0; batch < 5; batch++) {
      originals.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, (_, i) => {
            const startsAt = new Date(base + ((batch * 50 + i) % 37) * 60_000); // many share a start time
            return pager.events.create(
              anEvent({
                startsAt: startsAt.toISOString(),
                endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
              }),
            );
          }),
        )),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let inserted = 0;
    do {
      const page = await pager.events.list({
        hostId: pager.agentId,
        limit: 20,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.items.map((event) => event.id));
      for (let i = 1; i < page.items.length; i++) {
        const [a, b] = [page.items[i - 1]!, page.items[i]!];
        expect(a.startsAt < b.startsAt || (a.startsAt === b.startsAt && a.id < b.id)).toBe(true);
      }
      // Meanwhile, others schedule more events for the same host, before and after the cursor.
      await Promise.all(
        [-30, 90].map((minutes) => {
          const startsAt = new Date(base + minutes * 60_000 + inserted++ * 1000);
          return pager.events.create(
            anEvent({
              startsAt: startsAt.toISOString(),
              endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
            }),
          );
        }),
      );
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(originals.filter((event) => !seenSet.has(event.id))).toEqual([]);
  });

  it('filters by status, time range and text', async () => {
    const searcher = topology.client();
    const a = await searcher.events.create(anEvent({ title: 'Zebra migration AMA' }, 100));
    const b = await searcher.events.create(anEvent({ title: 'Quarterly planning' }, 200));
    await searcher.events.start(a.id);
    const live = await searcher.events.list({ hostId: searcher.agentId, status: 'live' });
    expect(live.items.map((e) => e.id)).toEqual([a.id]);
    const text = await searcher.events.list({ q: 'zebra', hostId: searcher.agentId });
    expect(text.items.map((e) => e.id)).toEqual([a.id]);
    const range = await searcher.events.list({
      hostId: searcher.agentId,
      from: new Date(Date.now() + 150 * HOUR).toISOString(),
      to: new Date(Date.now() + 250 * HOUR).toISOString(),
    });
    expect(range.items.map((e) => e.id)).toEqual([b.id]);
    expect(await problemOf(searcher.events.list({ status: 'finished' as never }))).toMatchObject({
      status: 400,
    });
    expect(await problemOf(searcher.events.list({ cursor: 'garbage' }))).toMatchObject({ status: 400 });
  });

  it('exports an event as RFC 5545 with a stable UID, TZID times and STATUS:CANCELLED once cancelled', async () => {
    const event = await host.events.create(anEvent({ timezone: 'America/New_York' }));
    const response = await fetch(`${topology.baseUrl}/events/${event.id}/calendar.ics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/calendar/);
    const vevent = new ICAL.Component(ICAL.parse(await response.text())).getFirstSubcomponent('vevent')!;
    expect(vevent.getFirstPropertyValue('uid')).toBe(`${event.id}@townhall`);
    expect(vevent.getFirstProperty('dtstart')!.getParameter('tzid')).toBe('America/New_York');
    await host.events.cancel(event.id);
    const again = new ICAL.Component(ICAL.parse(await host.events.calendar(event.id))).getFirstSubcomponent(
      'vevent',
    )!;
    expect(again.getFirstPropertyValue('uid')).toBe(`${event.id}@townhall`);
    expect(again.getFirstPropertyValue('status')).toBe('CANCELLED');
  });
});

describe('domain events through the outbox', () => {
  let topology: Topology;
  let tap: DomainEventTap;

  beforeAll(async () => {
    topology = await Topology.start({ serviceEnv: { events: { OUTBOX_RELAY: 'off' } } });
    tap = await DomainEventTap.start(topology.nats, ['townhall.event.>', 'townhall.series.>']);
  });
  afterAll(async () => {
    await topology?.stop();
    await tap?.stop();
  });

  it('keeps committed changes in the outbox while the relay is down and publishes each exactly once when it is back', async () => {
    const host = topology.client();
    const event = await host.events.create(anEvent());
    await host.events.update(event.id, { title: 'Renamed' });
    await host.events.start(event.id);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(tap.about(event.id)).toEqual([]);

    await topology.restartService('events', { OUTBOX_RELAY: 'on', OUTBOX_POLL_INTERVAL_MS: '100' });
    await host.events.end(event.id);
    const types = [EventTopics.scheduled, EventTopics.updated, EventTopics.started, EventTopics.ended];
    await tap.waitFor('all four events', () => tap.about(event.id).length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // and nothing more arrives
    const received = tap.about(event.id);
    expect(received.map((e) => e.type)).toEqual(types);
    expect(new Set(received.map((e) => e.id)).size).toBe(4);
    expect(received[3]).toMatchObject({
      specversion: '1.0',
      source: 'townhall/events',
      type: 'townhall.event.ended',
      subject: event.id,
      datacontenttype: 'application/json',
      data: { id: event.id, status: 'past', title: 'Renamed' },
    });
  });
});

describe('series, end to end', () => {
  let topology: Topology;
  let host: AgentClient;
  let tap: DomainEventTap;

  beforeAll(async () => {
    topology = await Topology.start();
    tap = await DomainEventTap.start(topology.nats, ['townhall.series.>']);
    host = topology.client();
  });
  afterAll(async () => {
    await topology?.stop();
    await tap?.stop();
  });

  const template = { durationMinutes: 60, capacity: 50 };

  it('keeps a weekly 19:00 New York series at 19:00 local across the DST change', async () => {
    const series = await host.series.create({
      title: 'Thursday AMA',
      recurrence: {
        startsAt: '2027-03-04T19:00',
        timezone: 'America/New_York',
        rrule: 'FREQ=WEEKLY;BYDAY=TH;COUNT=4',
      },
      template,
    });
    expect(series).toMatchObject({
      hostId: host.agentId,
      followerCount: 0,
      recurrence: { timezone: 'America/New_York' },
    });
    const occurrences = await host.events.list({ seriesId: series.id });
    expect(occurrences.items.map((event) => event.startsAt)).toEqual([
      '2027-03-05T00:00:00.000Z',
      '2027-03-12T00:00:00.000Z',
      '2027-03-18T23:00:00.000Z',
      '2027-03-25T23:00:00.000Z',
    ]);
    expect(
      occurrences.items.every((event) => event.seriesId === series.id && event.title === 'Thursday AMA'),
    ).toBe(true);
    expect(series.upcoming.map((occurrence) => occurrence.eventId)).toEqual(
      occurrences.items.map((event) => event.id),
    );

    const calendar = new ICAL.Component(ICAL.parse(await host.series.calendar(series.id)));
    const vevents = calendar.getAllSubcomponents('vevent');
    expect(vevents.map((vevent) => vevent.getFirstPropertyValue('uid'))).toEqual(
      occurrences.items.map((event) => `${event.id}@townhall`),
    );
  });

  it('skips months without a 31st in a monthly BYMONTHDAY=31 Berlin series', async () => {
    const series = await host.series.create({
      title: 'Month-end review',
      recurrence: {
        startsAt: '2027-01-31T10:00:00',
        timezone: 'Europe/Berlin',
        rrule: 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=5',
      },
      template,
    });
    const occurrences = await host.events.list({ seriesId: series.id });
    expect(occurrences.items.map((event) => event.startsAt)).toEqual([
      '2027-01-31T09:00:00.000Z',
      '2027-03-31T08:00:00.000Z',
      '2027-05-31T08:00:00.000Z',
      '2027-07-31T08:00:00.000Z',
      '2027-08-31T08:00:00.000Z',
    ]);
  });

  it('validates the recurrence and the template with field errors', async () => {
    const bad = await problemOf(
      host.series.create({
        title: 'Bad',
        recurrence: { startsAt: '2027-01-31T10:00', timezone: 'Nowhere/City', rrule: 'FREQ=HOURLY' },
        template,
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.problem.errors?.map((e) => e.field)).toEqual(
      expect.arrayContaining(['recurrence.timezone', 'recurrence.rrule']),
    );
    const template400 = await problemOf(
      host.series.create({
        title: 'Bad template',
        recurrence: { startsAt: '2027-01-31T10:00', timezone: 'UTC', rrule: 'FREQ=DAILY;COUNT=2' },
        template: { durationMinutes: 0, capacity: 10 },
      }),
    );
    expect(template400.problem.errors?.map((e) => e.field)).toContain('template.durationMinutes');
  });

  it('refuses a series that started long ago at once (expanding it would count every day since year 1)', async () => {
    const started = Date.now();
    const ancient = await problemOf(
      host.series.create({
        title: 'Since forever',
        recurrence: {
          startsAt: '0001-01-01T00:00',
          timezone: 'UTC',
          rrule: 'FREQ=DAILY;UNTIL=99991231T235959Z',
        },
        template,
      }),
    );
    expect([ancient.status, ancient.problem.errors?.[0]?.field]).toEqual([400, 'recurrence.startsAt']);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The events service is still responsive.
    expect((await fetch(`${topology.baseUrl}/events?limit=1`)).status).toBe(200);
  });

  it('follows and unfollows idempotently, announcing each change once', async () => {
    const series = await host.series.create({
      title: 'Daily standup',
      recurrence: { startsAt: '2027-02-01T09:00', timezone: 'UTC', rrule: 'FREQ=DAILY;COUNT=3' },
      template,
    });
    const fan = topology.client();
    expect((await fan.series.follow(series.id)).followerCount).toBe(1);
    expect((await fan.series.follow(series.id)).followerCount).toBe(1);
    expect((await fan.series.unfollow(series.id)).followerCount).toBe(0);
    expect((await fan.series.unfollow(series.id)).followerCount).toBe(0);
    const publicRead = await fetch(`${topology.baseUrl}/events/series/${series.id}`);
    expect(publicRead.status).toBe(200);

    await tap.waitFor('follow events', () => tap.about(series.id).length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(tap.about(series.id).map((event) => event.type)).toEqual([
      'townhall.series.created',
      'townhall.series.followed',
      'townhall.series.unfollowed',
    ]);
    expect(tap.about(series.id)[1]?.data).toEqual({ seriesId: series.id, agentId: fan.agentId });
    expect(await problemOf(fan.series.follow('00000000-0000-4000-8000-000000000000'))).toMatchObject({
      status: 404,
      code: 'series.not_found',
    });
  });

  it('lists series publicly at GET /events/series (not an event called "series"), by host and words, page by page', async () => {
    const lister = topology.client();
    const word = `w${Math.random().toString(36).slice(2, 10)}`;
    const created: SeriesView[] = [];
    for (const [i, title] of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'].entries())
      created.push(
        await lister.series.create({
          title: `${title} sync`,
          description: i % 2 === 0 ? `About ${word}` : 'Other things',
          recurrence: { startsAt: '2027-02-01T09:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=2' },
          template,
        }),
      );
    const newestFirst = created.map((series) => series.id).reverse();

    // Unsigned, page by page.
    const seen: string[] = [];
    let url = `${topology.baseUrl}/events/series?hostId=${lister.agentId}&limit=2`;
    for (;;) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { items: SeriesView[]; nextCursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((series) => series.id));
      if (!page.nextCursor) break;
      url = `${topology.baseUrl}/events/series?hostId=${lister.agentId}&limit=2&cursor=${page.nextCursor}`;
    }
    expect(seen).toEqual(newestFirst);

    const found = await topology.client().series.list({ q: word });
    expect(found.items.map((series) => series.id)).toEqual([created[4]!.id, created[2]!.id, created[0]!.id]);
    expect(found.items[0]).toEqual(await lister.series.get(created[4]!.id));
    expect(await topology.client().series.list({ hostId: topology.client().agentId })).toEqual({
      items: [],
      nextCursor: null,
    });

    const first = await lister.series.list({ hostId: lister.agentId, limit: 1 });
    const tampered = `${first.nextCursor!.slice(0, -3)}AAA`;
    const refused = await problemOf(lister.series.list({ hostId: lister.agentId, cursor: tampered }));
    expect([refused.status, refused.code, refused.problem.errors?.[0]?.field]).toEqual([
      400,
      'validation.failed',
      'cursor',
    ]);
    const unknown = await fetch(`${topology.baseUrl}/events/series?status=live`);
    expect(unknown.status).toBe(400);
    await unknown.arrayBuffer();
  });

  it('describes every NATS subject at GET /asyncapi.json, naming its NATS server by host only', async () => {
    const response = await fetch(`${topology.baseUrl}/asyncapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const document = (await response.json()) as {
      asyncapi: string;
      servers: Record<string, { host: string; protocol: string }>;
      channels: Record<string, { address: string | null }>;
    };
    expect(document.asyncapi).toBe('3.0.0');
    expect(document.servers['nats']).toMatchObject({
      host: new URL(topology.natsUrl).host,
      protocol: 'nats',
    });
    for (const type of Object.keys(domainEventCatalog)) expect(document.channels[type]?.address).toBe(type);
    expect(document.channels['events.series.list']?.address).toBe('events.series.list');
    const again = await fetch(`${topology.baseUrl}/asyncapi.json`, {
      headers: { 'if-none-match': response.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });
});

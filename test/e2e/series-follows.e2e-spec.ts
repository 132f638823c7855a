import type { EventView } from '@townhall/contracts';
import { AgentClient, type RsvpTicketResult } from '@townhall/sdk';
import { refusal, StandaloneProcess, Topology, waitFor } from '@townhall/testing';

/*
 * docs/product.md "Series": a follow does not hoard seats (a follower is seated in the next
 * occurrence only, later ones are open to everyone until they become the next), a host ends a
 * series, and a series' calendar file is bounded and answers a conditional GET with 304. Proven
 * from outside against the distributed topology and the standalone process alike.
 */

const DAY = 86_400_000;

/** A local date-time `days` from now at 12:00, in the form a series' recurrence takes. */
function daysFromNow(days: number): string {
  return `${new Date(Date.now() + days * DAY).toISOString().slice(0, 10)}T12:00`;
}

interface Mode {
  client(): AgentClient;
  baseUrl(): string;
}

function seriesScenarios(mode: Mode): void {
  const occurrencesOf = async (host: AgentClient, seriesId: string): Promise<EventView[]> =>
    (await host.events.list({ seriesId, limit: 100 })).items.sort((a, b) =>
      a.startsAt.localeCompare(b.startsAt),
    );
  const holdsTicketFor = async (agent: AgentClient, eventId: string) =>
    (await agent.tickets.mine({ limit: 100 })).items.some(
      (ticket) => ticket.eventId === eventId && ticket.status === 'active',
    );

  it('a followed free series of capacity 5 with 5 followers leaves the occurrence after next open to others', async () => {
    const host = mode.client();
    const series = await host.series.create({
      title: 'Daily standup',
      recurrence: { startsAt: daysFromNow(2), timezone: 'UTC', rrule: 'FREQ=DAILY;COUNT=4' },
      template: { durationMinutes: 30, capacity: 5 },
    });
    const followers = Array.from({ length: 5 }, () => mode.client());
    for (const follower of followers) await follower.series.follow(series.id);
    const [next, afterNext, later] = await occurrencesOf(host, series.id);

    // Each follower is seated in the next occurrence: it is full.
    await waitFor('the followers seated in the next occurrence', async () =>
      (await host.tickets.attendees(next!.id, { limit: 100 })).items.length === 5 ? true : undefined,
    );
    expect(await refusal(mode.client().tickets.rsvp(next!.id))).toMatchObject({ status: 409 });

    // The occurrence after next is open to everyone: a sixth agent takes a seat, and no follower holds one.
    const sixth = mode.client();
    const ticket = (await sixth.tickets.rsvp(afterNext!.id)) as RsvpTicketResult;
    expect(ticket.ticket).toMatchObject({
      eventId: afterNext!.id,
      holderId: sixth.agentId,
      status: 'active',
    });
    for (const follower of followers) {
      expect(await holdsTicketFor(follower, next!.id)).toBe(true);
      expect(await holdsTicketFor(follower, afterNext!.id)).toBe(false);
      expect(await holdsTicketFor(follower, later!.id)).toBe(false);
    }
    expect((await host.tickets.attendees(afterNext!.id, { limit: 100 })).items).toHaveLength(1);
  });

  it('ends a series: the host only, once; occurrences nobody holds a ticket for are cancelled, the others stay', async () => {
    const host = mode.client();
    const series = await host.series.create({
      title: 'Book club',
      recurrence: { startsAt: daysFromNow(3), timezone: 'UTC', rrule: 'FREQ=WEEKLY' },
      template: { durationMinutes: 60, capacity: 20 },
    });
    const before = await occurrencesOf(host, series.id);
    expect(before.length).toBeGreaterThanOrEqual(12);
    const reader = mode.client();
    await reader.tickets.rsvp(before[1]!.id);
    // The events service counts the ticket from ticketing's announcement: what ending reads.
    await waitFor('the ticket counted', async () =>
      (await host.events.get(before[1]!.id)).counts.ticketsSold['general'] === 1 ? true : undefined,
    );

    expect(await refusal(reader.series.end(series.id))).toEqual({ status: 403, code: 'role.forbidden' });
    const ended = await host.series.end(series.id);
    expect(ended.endedAt).toEqual(expect.any(String));
    expect(ended.upcoming.map((occurrence) => occurrence.eventId)).toEqual([before[1]!.id]);
    // Ending again answers the same series.
    expect(await host.series.end(series.id)).toEqual(ended);
    expect((await host.series.get(series.id)).endedAt).toBe(ended.endedAt);

    const after = await occurrencesOf(host, series.id);
    expect(after.map((event) => event.id)).toEqual(before.map((event) => event.id));
    expect(after.map((event) => event.status)).toEqual(
      before.map((_, i) => (i === 1 ? 'scheduled' : 'cancelled')),
    );
    expect(await holdsTicketFor(reader, before[1]!.id)).toBe(true);
    expect(await refusal(host.series.end('00000000-0000-4000-8000-000000000000'))).toEqual({
      status: 404,
      code: 'series.not_found',
    });
  });

  it('serves the calendar of the next 12 months and the last 3, cacheable: 304 to its ETag until an occurrence changes', async () => {
    const host = mode.client();
    // Every fourth month: ten occurrences planned over three years, four within twelve months.
    const series = await host.series.create({
      title: 'Quarterly-ish review',
      recurrence: { startsAt: daysFromNow(1), timezone: 'UTC', rrule: 'FREQ=MONTHLY;INTERVAL=4' },
      template: { durationMinutes: 60, capacity: 20 },
    });
    const occurrences = await occurrencesOf(host, series.id);
    expect(occurrences).toHaveLength(10);
    const yearOn = new Date(Date.now());
    yearOn.setUTCMonth(yearOn.getUTCMonth() + 12);
    const inWindow = occurrences.filter((event) => Date.parse(event.startsAt) < yearOn.getTime());

    const url = `${mode.baseUrl()}/events/series/${series.id}/calendar.ics`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const body = await first.text();
    expect(body.match(/BEGIN:VEVENT/g)).toHaveLength(inWindow.length);
    for (const event of inWindow) expect(body).toContain(`UID:${event.id}@`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');

    const again = await fetch(url, { headers: { 'if-none-match': etag } });
    expect([again.status, await again.text(), again.headers.get('etag')]).toEqual([304, '', etag]);

    // An occurrence in the window cancelled: the file changed, the old tag gets it whole.
    await host.events.cancel(inWindow[0]!.id);
    const changed = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await changed.text()).toContain('STATUS:CANCELLED');
  });
}

describe('series follows, ends and calendars (distributed)', () => {
  let topology: Topology;

  beforeAll(async () => {
    topology = await Topology.start();
  });
  afterAll(async () => {
    await topology?.stop();
  });

  seriesScenarios({ client: () => topology.client(), baseUrl: () => topology.baseUrl });
});

describe('series follows, ends and calendars (standalone)', () => {
  const AUDIENCE = 'https://series.townhall.test';
  let standalone: StandaloneProcess;

  beforeAll(async () => {
    standalone = await StandaloneProcess.start({ PUBLIC_BASE_URL: AUDIENCE });
  });
  afterAll(async () => {
    await standalone?.stop();
  });

  seriesScenarios({
    client: () => new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE }),
    baseUrl: () => standalone.baseUrl,
  });
});

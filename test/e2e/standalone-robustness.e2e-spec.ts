import type { DirectoryCard, EventFieldsInput, EventView, Page, StageMessageView } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { StandaloneProcess } from '@townhall/testing';

/** The audience requests are signed for: fixed, as the port is known only once the process runs. */
const AUDIENCE = 'http://standalone.townhall.test';
/** Past pg's idle timeout (10 s): every service's pool closes its connection and opens a new one. */
const IDLE_MS = 15_000;
const BODY_LIMIT = 64 * 1024;
const HOUR = 3_600_000;

const euros = (count: number): string => '€'.repeat(count); // 3 bytes each in UTF-8

function anEvent(fields: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'Robustness',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 1_000,
    ...fields,
  };
}

/** An event near the body limit: every text field at its maximum, in three-byte characters. */
function aLargeEvent(speakers: string[]): EventFieldsInput {
  return anEvent({
    title: euros(200),
    description: euros(5_000),
    agenda: Array.from({ length: 50 }, (_, index) => ({
      title: euros(200),
      startOffsetMinutes: index,
      durationMinutes: 1,
      speakerIds: speakers.slice(0, 2),
    })),
    speakers: Array.from({ length: 50 }, (_, index) => speakers[index % speakers.length]!),
  });
}

/** The status a request ends with, success or refusal. */
async function statusOf(request: Promise<{ status: number }>): Promise<number> {
  try {
    return (await request).status;
  } catch (error) {
    if (error instanceof TownhallError) return error.status;
    throw error;
  }
}

describe('standalone: large multi-byte requests, an idle pause, then every read', () => {
  let standalone: StandaloneProcess;
  let baseUrl = '';

  beforeAll(async () => {
    // A fixed audience; write rate limits off, as the host alone writes about 40 times a second.
    standalone = await StandaloneProcess.start({
      PUBLIC_BASE_URL: AUDIENCE,
      RATE_LIMIT_WRITES_PER_SECOND: '0',
    });
    baseUrl = standalone.baseUrl;
  });
  afterAll(async () => {
    await standalone?.stop();
  });
  const alive = (): boolean => standalone.alive;

  it('takes 100 signed writes of up to 60 KB, idles past the pool timeout, and still answers every read', async () => {
    const agents = Array.from({ length: 10 }, () => new AgentClient({ baseUrl, audience: AUDIENCE }));
    const [host, ...guests] = agents as [AgentClient, ...AgentClient[]];
    const guestIds = guests.map((guest) => guest.agentId);
    const handles = agents.map((_, index) => `robust_${index}_${Date.now() % 1_000_000}`);
    const statuses: number[] = [];
    const send = async (requests: Array<Promise<{ status: number }>>) =>
      statuses.push(...(await Promise.all(requests.map(statusOf))));

    // Directory cards: 10 writes of ~5 KB.
    await send(
      agents.map((agent, index) =>
        agent.request('PUT', '/directory/me', {
          body: {
            handle: handles[index],
            displayName: euros(100),
            bio: euros(1_000),
            links: Array.from({ length: 10 }, (_, link) => ({
              label: euros(50),
              url: `https://example.com/${link}`,
            })),
          },
        }),
      ),
    );
    // The 8.4 KB description that once stopped the process, then 20 events of ~60 KB.
    const reported = await host.events.create(anEvent({ description: euros(2_800), speakers: guestIds }));
    statuses.push(201);
    const large = aLargeEvent(guestIds);
    const largeBytes = Buffer.byteLength(JSON.stringify(large));
    expect(largeBytes).toBeGreaterThan(55_000);
    expect(largeBytes).toBeLessThan(BODY_LIMIT);
    const created: EventView[] = [];
    await send(
      Array.from({ length: 20 }, async () => {
        const response = await host.request<EventView>('POST', '/events', { body: large });
        created.push(response.data);
        return response;
      }),
    );
    const series = await host.series.create({
      title: euros(200),
      description: euros(5_000),
      recurrence: { startsAt: '2031-03-06T19:00', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;COUNT=3' },
      template: { durationMinutes: 60, capacity: 50, agenda: large.agenda!, speakers: guestIds },
    });
    statuses.push(201);

    // Live: tickets, 20 stage messages of 12 KB, 18 questions of 3 KB, a poll of 7.5 KB.
    await send([host.request('POST', `/events/${reported.id}/start`)]);
    await send(guests.map((guest) => guest.request('POST', `/events/${reported.id}/rsvp`, { body: {} })));
    await send(
      Array.from({ length: 20 }, () =>
        host.request('POST', `/events/${reported.id}/stage`, { body: { body: euros(4_000) } }),
      ),
    );
    await send(
      guests.flatMap((guest) =>
        [1, 2].map(() =>
          guest.request('POST', `/events/${reported.id}/questions`, { body: { body: euros(1_000) } }),
        ),
      ),
    );
    await send([
      host.request('POST', `/events/${reported.id}/polls`, {
        body: { question: euros(500), options: Array.from({ length: 10 }, () => euros(200)) },
      }),
    ]);
    await send(
      created
        .slice(0, 8)
        .map((event) =>
          host.request('PATCH', `/events/${event.id}`, { body: { description: euros(4_999) } }),
        ),
    );
    await send([host.request('POST', `/events/${reported.id}/end`)]);
    // Refused before the database: a description over 5,000 characters, and bodies over 64 KiB.
    const refused = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        statusOf(host.request('POST', '/events', { body: anEvent({ description: euros(5_001) }) })),
      ),
      ...Array.from({ length: 5 }, () =>
        statusOf(host.request('POST', `/events/${created[0]!.id}/stage`, { body: { body: euros(22_000) } })),
      ),
    ]);
    expect(refused).toEqual([...Array<number>(5).fill(400), ...Array<number>(5).fill(413)]);
    expect(statuses.length + refused.length).toBe(100);
    expect(statuses.every((status) => status === 200 || status === 201)).toBe(true);
    expect(alive()).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    expect(alive()).toBe(true);

    // After the pause every service reconnects at once, its named statements prepared again.
    const [guest] = guests as [AgentClient];
    const events = `/events/${reported.id}`;
    const publicReads = [
      '/healthz',
      '/readyz',
      '/events',
      ...[reported.id, created[0]!.id, created[19]!.id].map((id) => `/events/${id}`),
      ...['stage', 'questions', 'polls', 'calendar.ics'].map((part) => `${events}/${part}`),
      `/events/series/${series.id}`,
      `/events/series/${series.id}/calendar.ics`,
    ].map((route) => ({ route, by: host, signed: false }));
    const signedReads = [
      { route: `${events}/rsvps`, by: host },
      { route: `${events}/recording/draft`, by: host },
      ...agents.map((agent) => ({ route: `/directory/${agent.agentId}`, by: guest })),
      ...handles.map((handle) => ({ route: `/directory/handles/${handle}`, by: host })),
      { route: '/me/tickets', by: guest },
      { route: '/ledger/balance', by: guest },
      { route: '/ledger', by: guest },
    ].map((read) => ({ ...read, signed: true }));
    const answered = await Promise.all(
      [...publicReads, ...signedReads].map(async ({ route, by, signed }) => ({
        route,
        status: await statusOf(by.request('GET', route, { signed })),
      })),
    );
    expect(answered.filter((read) => read.status !== 200)).toEqual([]);

    // And what was written reads back whole.
    expect((await host.events.get(reported.id)).description).toBe(euros(2_800));
    expect((await host.events.get(created[0]!.id)).description).toBe(euros(4_999));
    expect((await host.events.get(created[19]!.id)).description).toBe(euros(5_000));
    const card = await host.call<DirectoryCard>('GET', `/directory/${guest.agentId}`);
    expect(card.bio).toBe(euros(1_000));
    const stage = await host.call<Page<StageMessageView>>('GET', `/events/${reported.id}/stage`, {
      signed: false,
      query: { limit: 50 },
    });
    expect(stage.items.map((message) => message.body)).toEqual(Array<string>(20).fill(euros(4_000)));
    expect(alive()).toBe(true);
  }, 90_000);
});

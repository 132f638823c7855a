// The events service's series list on its own (the service tier: libs/testing/src/service.ts).
import { generateAgentKey } from '@townhall/auth';
import { Series, type CreateSeriesInput, type SeriesView } from '@townhall/contracts';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

/** An agentId as the gateway passes it on (the service checks its form, not its key). */
const agent = () => generateAgentKey().agentId;

describe('events service: the series list', () => {
  let events: ServiceHarness;

  beforeAll(async () => {
    events = await ServiceHarness.start(eventsService);
  });
  afterAll(async () => {
    await events?.stop();
  });

  const create = (host: string, title: string, description = '') =>
    events.send(Series.create, aSeries(title, description), host);
  const list = (query: Parameters<typeof Series.list.request.parse>[0]) =>
    events.send(Series.list, query as never);

  /** Every page of `query`, `limit` at a time, and the cursors that led to them. */
  async function everyPage(query: { hostId?: string; q?: string }, limit: number) {
    const pages: SeriesView[][] = [];
    let cursor: string | undefined;
    do {
      const page = await events.send(Series.list, { ...query, limit, ...(cursor ? { cursor } : {}) });
      pages.push(page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return pages;
  }

  it("pages through a host's series newest first, each as GET /events/series/{id} shows it", async () => {
    const host = agent();
    const created: SeriesView[] = [];
    for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) created.push(await create(host, title));
    const fan = agent();
    await events.send(Series.follow, { seriesId: created[1]!.id, follow: true }, fan);

    const pages = await everyPage({ hostId: host }, 2);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    const listed = pages.flat();
    expect(listed.map((series) => series.title)).toEqual(['Five', 'Four', 'Three', 'Two', 'One']);
    for (const series of listed)
      expect(series).toEqual(await events.send(Series.get, { seriesId: series.id }));
    expect(listed.find((series) => series.title === 'Two')?.followerCount).toBe(1);
    expect(listed[0]!.upcoming).toHaveLength(3);

    // Another host's series are not in this host's list; without a filter, all are (the newest first).
    const other = await create(agent(), 'Elsewhere');
    expect((await list({ hostId: host, limit: 100 })).items).toHaveLength(5);
    expect((await list({ limit: 1 })).items.map((series) => series.id)).toEqual([other.id]);
  });

  it('finds words in the title or the description (all of them, as the event list does)', async () => {
    const host = agent();
    const word = `w${Math.random().toString(36).slice(2, 10)}`;
    const inTitle = await create(host, `Rust ${word} office hours`, 'Bring questions');
    const inDescription = await create(host, 'Weekly sync', `All about ${word} and agents`);
    await create(host, 'Unrelated', 'Nothing here');

    const ids = async (q: string, hostId?: string) =>
      (await list({ q, limit: 100, ...(hostId ? { hostId } : {}) })).items.map((series) => series.id);
    expect(await ids(word)).toEqual([inDescription.id, inTitle.id]);
    expect(await ids(word.toUpperCase())).toEqual([inDescription.id, inTitle.id]);
    expect(await ids(`${word} agents`)).toEqual([inDescription.id]);
    expect(await ids(`${word} -agents`)).toEqual([inTitle.id]);
    expect(await ids(word, agent())).toEqual([]);
    expect(await ids(`${word}zzz`)).toEqual([]);
  });

  it('answers an unknown host with an empty page, and refuses a malformed one', async () => {
    expect(await list({ hostId: agent() })).toEqual({ items: [], nextCursor: null });
    const refusal = await refusalOf(list({ hostId: 'not an agent id' }));
    expect([refusal.code, refusal.errors?.[0]?.field]).toEqual(['validation.failed', 'hostId']);
    expect((await refusalOf(list({ q: '  ' }))).code).toBe('validation.failed');
    expect((await refusalOf(list({ limit: 101 }))).code).toBe('validation.failed');
    expect((await refusalOf(list({ status: 'live' } as never))).code).toBe('validation.failed');
  });

  it('refuses a cursor it did not give: tampered, truncated, out of range, not base64url', async () => {
    const host = agent();
    for (const title of ['A', 'B', 'C']) await create(host, title);
    const { nextCursor } = await list({ hostId: host, limit: 1 });
    expect(nextCursor).toEqual(expect.any(String));
    const cursor = nextCursor!;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, string];
    const forged = [
      `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}x`,
      cursor.slice(0, 10),
      Buffer.from(JSON.stringify([decoded[0], 'not-a-uuid'])).toString('base64url'),
      Buffer.from(JSON.stringify(['yesterday', decoded[1]])).toString('base64url'),
      Buffer.from(JSON.stringify(['99999-01-01T00:00:00.000Z', decoded[1]])).toString('base64url'),
      'not base64 !',
    ];
    for (const bad of forged) {
      const refusal = await refusalOf(list({ hostId: host, limit: 1, cursor: bad }));
      expect([bad, refusal.code, refusal.errors?.[0]?.field]).toEqual([bad, 'validation.failed', 'cursor']);
    }
    // The genuine one still works.
    expect((await list({ hostId: host, limit: 1, cursor })).items.map((series) => series.title)).toEqual([
      'B',
    ]);
  });

  it('pages apart series created in the same millisecond, and in the same microsecond', async () => {
    const host = agent();
    const created = [];
    for (const title of ['P', 'Q', 'R', 'S']) created.push(await create(host, title));
    const ids = created.map((series) => series.id);
    // Two in one microsecond (the id breaks the tie), two more within that same millisecond.
    await events.query(
      `UPDATE events.series SET created_at = CASE
         WHEN id = ANY($1::uuid[]) THEN '2030-01-01T00:00:00.123456Z'::timestamptz
         WHEN id = $2 THEN '2030-01-01T00:00:00.123100Z'::timestamptz
         ELSE '2030-01-01T00:00:00.123900Z'::timestamptz END
       WHERE host_id = $3`,
      [[ids[0], ids[1]], ids[2], host],
    );
    const listed = (await everyPage({ hostId: host }, 1)).flat().map((series) => series.id);
    expect(listed).toHaveLength(4);
    expect(new Set(listed)).toEqual(new Set(ids));
    const tied = [ids[0]!, ids[1]!].sort().reverse();
    expect(listed).toEqual([ids[3], ...tied, ids[2]]);
  });

  it('announces only what the domain event catalog says', async () => {
    await create(agent(), 'Announced');
    expect(events.published.length).toBeGreaterThan(0);
    expect(events.offCatalog()).toEqual([]);
  });
});

function aSeries(title: string, description: string): CreateSeriesInput {
  return {
    title,
    description,
    recurrence: { startsAt: '2027-03-04T19:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=3' },
    template: { durationMinutes: 60, capacity: 50 },
  };
}

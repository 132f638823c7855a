import 'reflect-metadata';
import type { CreateSeries } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { seriesOnPostgres, type SeriesOnPostgres } from './fixtures.js';

const DAY = 86_400_000;
const HOST = 'HostAgent1111111111111111111111111111111111';
const STRANGER = 'Stranger11111111111111111111111111111111111';

const daily = (title: string, rrule = 'FREQ=DAILY'): CreateSeries => ({
  title,
  description: '',
  recurrence: { startsAt: '2027-01-02T09:00', timezone: 'Europe/Berlin', rrule },
  template: {
    durationMinutes: 30,
    capacity: 10,
    ticketing: { mode: 'free' },
    access: 'open',
    agenda: [],
    moderators: [],
    speakers: [],
  },
});

/** Medium test: series that end, and an extension that reads only the series that need it. */
describe('series end, and which series are extended', () => {
  let dataSource: DataSource;
  let now: Date;
  let createSeries: SeriesOnPostgres['createSeries'];
  let getSeries: SeriesOnPostgres['getSeries'];
  let endSeries: SeriesOnPostgres['endSeries'];
  let extendSeries: SeriesOnPostgres['extendSeries'];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    now = new Date('2027-01-01T12:00:00Z');
    ({ dataSource, createSeries, getSeries, endSeries, extendSeries, close } = await seriesOnPostgres(
      () => now,
      {
        events: 1000,
        series: 1000,
      },
    ));
  });
  afterAll(() => close?.());

  const occurrences = (seriesId: string) =>
    queryRows<{ id: string; occurrence_index: number; status: string }>(
      dataSource,
      'SELECT id, occurrence_index, status FROM events.events WHERE series_id = $1 ORDER BY occurrence_index',
      [seriesId],
    );
  const announced = (subject: string, type: string) =>
    queryRows<{ subject: string }>(
      dataSource,
      'SELECT subject FROM events.outbox WHERE subject = $1 AND type = $2',
      [subject, type],
    );
  const dueOf = async (seriesId: string) =>
    (
      await queryRows<{ extend_due_at: Date | null }>(
        dataSource,
        'SELECT extend_due_at FROM events.series WHERE id = $1',
        [seriesId],
      )
    )[0]!.extend_due_at;

  it('stops new occurrences: an ended series is never extended, a live one is, each when due', async () => {
    const live = await createSeries.create(HOST, daily('Stays'));
    const ending = await createSeries.create(HOST, daily('Ends'));
    const counted = await createSeries.create(HOST, daily('Counted', 'FREQ=DAILY;COUNT=5'));
    // Each is due when its next occurrence comes within the horizon (the 86th, 2027-03-28 09:00
    // CEST = 07:00Z, less 12 weeks); one whose COUNT is all planned is never due again.
    expect((await dueOf(live.id))?.toISOString()).toBe('2027-01-03T07:00:00.000Z');
    expect(await dueOf(counted.id)).toBeNull();

    const ended = await endSeries.end(ending.id, HOST);
    expect(ended.endedAt).toBe(now.toISOString());
    expect(await dueOf(ending.id)).toBeNull();
    const endedOccurrences = await occurrences(ending.id);
    expect(endedOccurrences).toHaveLength(85);

    now = new Date(now.getTime() + 30 * DAY);
    expect(await extendSeries.extendAll()).toBe(29);
    expect(await occurrences(live.id)).toHaveLength(114);
    expect(await occurrences(ending.id)).toEqual(endedOccurrences);
    expect(await occurrences(counted.id)).toHaveLength(5);
    expect((await dueOf(live.id))!.getTime()).toBeGreaterThan(now.getTime());
    // Nothing is due now: a second pass reads no series and creates nothing.
    expect(await extendSeries.extendAll()).toBe(0);
  });

  it('cancels the occurrences nobody holds a ticket for, keeps the others, and answers the same when ended again', async () => {
    now = new Date('2027-01-01T12:00:00Z');
    const created = await createSeries.create(HOST, daily('Book club', 'FREQ=DAILY;COUNT=6'));
    const [first, second, third] = await occurrences(created.id);
    // The first has started (it is live); the third has a ticket holder.
    await dataSource.query(`UPDATE events.events SET status = 'live', started_at = now() WHERE id = $1`, [
      first!.id,
    ]);
    await dataSource.query(`UPDATE events.events SET tickets_sold = '{"general": 1}' WHERE id = $1`, [
      third!.id,
    ]);
    now = new Date('2027-01-02T08:10:00Z'); // the first began at 08:00Z

    expect((await refusal(endSeries.end(created.id, STRANGER))).code).toBe('role.forbidden');
    expect(await getSeries.get(created.id)).toMatchObject({ endedAt: null });

    const ended = await endSeries.end(created.id, HOST);
    expect(ended.endedAt).toBe(now.toISOString());
    const after = await occurrences(created.id);
    expect(after.map((occurrence) => occurrence.status)).toEqual([
      'live',
      'cancelled',
      'scheduled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(ended.upcoming.map((occurrence) => occurrence.eventId)).toEqual([first!.id, third!.id]);
    expect(await announced(second!.id, 'townhall.event.cancelled')).toHaveLength(1);
    expect(await announced(created.id, 'townhall.series.ended')).toHaveLength(1);

    now = new Date(now.getTime() + DAY);
    expect(await endSeries.end(created.id, HOST)).toEqual(ended);
    expect(await announced(created.id, 'townhall.series.ended')).toHaveLength(1);
    expect((await refusal(endSeries.end('00000000-0000-4000-8000-000000000000', HOST))).code).toBe(
      'series.not_found',
    );
  });
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string };
  }
  throw new Error('expected a refusal');
}

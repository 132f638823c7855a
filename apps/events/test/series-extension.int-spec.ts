import 'reflect-metadata';
import { queryRows } from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { DEFAULT_HOST_LIMITS } from '../src/events/host-limits.js';
import { seriesOnPostgres, type SeriesOnPostgres } from './fixtures.js';

const DAY = 86_400_000;
const HOST = 'HostAgent1111111111111111111111111111111111';

/** Medium test: the series' use cases on a real Postgres, with a clock the test moves. */
describe('series extension over time', () => {
  let dataSource: DataSource;
  let now: Date;
  let createSeries: SeriesOnPostgres['createSeries'];
  let extendSeries: SeriesOnPostgres['extendSeries'];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    now = new Date('2027-01-01T12:00:00Z');
    ({ dataSource, createSeries, extendSeries, close } = await seriesOnPostgres(
      () => now,
      DEFAULT_HOST_LIMITS,
    ));
  });
  afterAll(() => close?.());

  const occurrences = async (seriesId: string) =>
    queryRows<{ occurrence_index: number; starts_at: Date }>(
      dataSource,
      'SELECT occurrence_index, starts_at FROM events.events WHERE series_id = $1 ORDER BY occurrence_index',
      [seriesId],
    );
  const announced = async (seriesId: string) =>
    queryRows<{ subject: string }>(
      dataSource,
      `SELECT subject FROM events.outbox WHERE type = 'townhall.event.scheduled' AND payload->'data'->>'seriesId' = $1`,
      [seriesId],
    );

  it('materialises up to the horizon, extends as time passes, and creates each occurrence once', async () => {
    const created = await createSeries.create(HOST, {
      title: 'Daily sync',
      description: '',
      recurrence: { startsAt: '2027-01-02T09:00', timezone: 'Europe/Berlin', rrule: 'FREQ=DAILY' },
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
    // 12 weeks past the first occurrence (2027-01-02 08:00Z): 85 daily occurrences.
    let rows = await occurrences(created.id);
    expect(rows).toHaveLength(85);
    expect(rows.map((row) => row.occurrence_index)).toEqual(Array.from({ length: 85 }, (_, i) => i));
    expect(await extendSeries.extendAll()).toBe(0);

    // 30 days later the horizon is now + 12 weeks = 2027-04-25T12:00Z: 03-28 to 04-25 are new
    // (29), and a second run finds nothing to do.
    now = new Date(now.getTime() + 30 * DAY);
    expect(await extendSeries.extendAll()).toBe(29);
    expect(await extendSeries.extendAll()).toBe(0);

    // Two replicas extending at the same moment create every occurrence exactly once.
    now = new Date(now.getTime() + 10 * DAY);
    const [a, b] = await Promise.all([extendSeries.extendAll(), extendSeries.extendAll()]);
    expect(a + b).toBe(10);

    rows = await occurrences(created.id);
    expect(rows).toHaveLength(124);
    expect(new Set(rows.map((row) => row.occurrence_index)).size).toBe(124);
    // Each occurrence was announced exactly once.
    const subjects = (await announced(created.id)).map((row) => row.subject);
    expect(subjects).toHaveLength(124);
    expect(new Set(subjects).size).toBe(124);
  });

  it('keeps 10 upcoming occurrences of a monthly series although 12 weeks hold only 3', async () => {
    const created = await createSeries.create(HOST, {
      title: 'Monthly review',
      description: '',
      recurrence: { startsAt: '2027-03-01T18:00', timezone: 'America/New_York', rrule: 'FREQ=MONTHLY' },
      template: {
        durationMinutes: 60,
        capacity: 10,
        ticketing: { mode: 'free' },
        access: 'open',
        agenda: [],
        moderators: [],
        speakers: [],
      },
    });
    expect(await occurrences(created.id)).toHaveLength(10);
    expect(created.upcoming).toHaveLength(10);
  });
});

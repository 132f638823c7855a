import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import {
  firstOccurrences,
  HORIZON,
  plannedOccurrences,
  RecurrenceSchema,
  type RecurrenceInput,
} from './recurrence.js';

// Properties of the series expander over rules fast-check makes up (docs/api.md "Series"): in
// order, at the rule's wall-clock time in its zone (an occurrence in a DST gap is skipped, see
// recurrence.ts), on the days the rule names, within COUNT and UNTIL, and, for what a series
// plans, from now to the horizon with stable indices.

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe', // a 30-minute DST shift
  'Pacific/Chatham', // UTC+12:45 / +13:45
  'America/Santiago', // DST changes at 24:00 local
  'America/Havana', // its spring-forward gap is 00:00-01:00: a midnight that does not exist
  'Asia/Kathmandu',
] as const;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
const DAY_MS = 86_400_000;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

interface Case {
  recurrence: RecurrenceInput;
  freq: 'DAILY' | 'WEEKLY' | 'MONTHLY';
  byDay: string[];
  byMonthDay: number[];
  count: number | undefined;
  untilDays: number | undefined;
}

const recurrenceCase: fc.Arbitrary<Case> = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    year: fc.integer({ min: 2025, max: 2031 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.oneof(fc.constantFrom(0, 1, 2, 3, 23), fc.integer({ min: 0, max: 23 })),
    minute: fc.constantFrom(0, 15, 30, 45),
    freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY') as fc.Arbitrary<Case['freq']>,
    interval: fc.integer({ min: 1, max: 4 }),
    weekdays: fc.subarray([...WEEKDAYS]),
    ordinal: fc.option(fc.tuple(fc.constantFrom(1, 2, -1), fc.constantFrom(...WEEKDAYS)), { nil: undefined }),
    monthDays: fc.subarray([1, 15, 28, 29, 30, 31, -1]),
    end: fc.oneof(
      fc.record({ count: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ untilDays: fc.integer({ min: 0, max: 400 }) }),
      fc.constant({}),
    ),
  })
  .map((c): Case => {
    const byDay =
      c.freq === 'WEEKLY'
        ? c.weekdays
        : c.freq === 'MONTHLY' && c.ordinal
          ? [`${c.ordinal[0]}${c.ordinal[1]}`]
          : [];
    const byMonthDay = c.freq === 'MONTHLY' && byDay.length === 0 ? c.monthDays : [];
    const count = 'count' in c.end ? c.end.count : undefined;
    const untilDays = 'untilDays' in c.end ? c.end.untilDays : undefined;
    const startsAt = `${c.year}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}`;
    const parts = [`FREQ=${c.freq}`, `INTERVAL=${c.interval}`];
    if (byDay.length > 0) parts.push(`BYDAY=${byDay.join(',')}`);
    if (byMonthDay.length > 0) parts.push(`BYMONTHDAY=${byMonthDay.join(',')}`);
    if (count !== undefined) parts.push(`COUNT=${count}`);
    if (untilDays !== undefined) {
      const until = new Date(Date.UTC(c.year, c.month - 1, Math.min(c.day, 28)) + untilDays * DAY_MS);
      parts.push(`UNTIL=${until.getUTCFullYear()}${pad(until.getUTCMonth() + 1)}${pad(until.getUTCDate())}`);
    }
    return {
      recurrence: { startsAt, timezone: c.zone, rrule: parts.join(';') },
      freq: c.freq,
      byDay,
      byMonthDay,
      count,
      untilDays,
    };
  })
  // Only rules the API accepts (2026-02-30, or BYMONTHDAY=31 every 12 months from April, are refused).
  .filter((c) => RecurrenceSchema.safeParse(c.recurrence).success);

/** The rule's DTSTART as the expander resolves it: a local time in a DST gap moves forward. */
function dtstartOf(recurrence: RecurrenceInput): Temporal.ZonedDateTime {
  return Temporal.PlainDateTime.from(recurrence.startsAt).toZonedDateTime(recurrence.timezone, {
    disambiguation: 'compatible',
  });
}

function wallTime(instant: Date, zone: string): Temporal.PlainDateTime {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(zone).toPlainDateTime();
}

function untilOf(c: Case): Temporal.PlainDate | undefined {
  const until = /UNTIL=(\d{4})(\d{2})(\d{2})/.exec(c.recurrence.rrule);
  return until
    ? Temporal.PlainDate.from({ year: +until[1]!, month: +until[2]!, day: +until[3]! })
    : undefined;
}

/** The DST edges, always tried first: a daily 02:30 over New York's and Berlin's spring-forward night, Havana's missing midnight. */
const DST_EDGES: Array<[Case]> = [
  ['2027-03-12T02:30', 'America/New_York', 'FREQ=DAILY;COUNT=5'],
  ['2027-03-26T02:30', 'Europe/Berlin', 'FREQ=DAILY;COUNT=5'],
  ['2027-10-29T02:30', 'Europe/Berlin', 'FREQ=DAILY;COUNT=5'],
  ['2027-03-12T00:00', 'America/Havana', 'FREQ=DAILY;COUNT=5'],
  ['2027-04-02T02:15', 'Australia/Lord_Howe', 'FREQ=DAILY;COUNT=5'],
].map(([startsAt, timezone, rrule]) => [
  {
    recurrence: { startsAt: startsAt!, timezone: timezone!, rrule: rrule! },
    freq: 'DAILY',
    byDay: [],
    byMonthDay: [],
    count: 5,
    untilDays: undefined,
  },
]);

describe('series recurrence (property)', () => {
  it('expands in order, at the rule wall time in its zone, on the days it names, within COUNT and UNTIL', () => {
    fc.assert(
      fc.property(recurrenceCase, (c) => {
        const limit = 40;
        const occurrences = firstOccurrences(c.recurrence, limit);
        const dtstart = dtstartOf(c.recurrence);
        const timeOfDay = dtstart.toPlainTime().toString({ smallestUnit: 'second' });
        const until = untilOf(c);

        if (c.count !== undefined) expect(occurrences).toHaveLength(Math.min(c.count, limit));
        else if (until === undefined) expect(occurrences).toHaveLength(limit);
        expect(occurrences.length).toBeGreaterThan(0);
        expect(occurrences[0]!.startsAt.getTime()).toBeGreaterThanOrEqual(dtstart.epochMilliseconds);

        occurrences.forEach((occurrence, i) => {
          expect(occurrence.index).toBe(i);
          if (i > 0)
            expect(occurrence.startsAt.getTime()).toBeGreaterThan(occurrences[i - 1]!.startsAt.getTime());
          const local = wallTime(occurrence.startsAt, c.recurrence.timezone);
          // localStart is the instant's own wall time, and it is the rule's time of day.
          expect(occurrence.localStart).toBe(local.toString({ smallestUnit: 'second' }));
          expect({
            at: occurrence.localStart,
            time: local.toPlainTime().toString({ smallestUnit: 'second' }),
          }).toEqual({
            at: occurrence.localStart,
            time: timeOfDay,
          });
          const date = local.toPlainDate();
          if (until) expect(Temporal.PlainDate.compare(date, until)).toBeLessThanOrEqual(0);
          if (c.freq === 'WEEKLY') {
            const days = c.byDay.length > 0 ? c.byDay : [WEEKDAYS[dtstart.dayOfWeek - 1]!];
            expect(days).toContain(WEEKDAYS[date.dayOfWeek - 1]);
          }
          if (c.freq === 'MONTHLY' && c.byMonthDay.length > 0) {
            const named = c.byMonthDay.map((day) => (day > 0 ? day : date.daysInMonth + day + 1));
            expect(named).toContain(date.day);
          }
          if (c.freq === 'MONTHLY' && c.byDay.length === 0 && c.byMonthDay.length === 0)
            expect(date.day).toBe(dtstart.day);
        });
      }),
      { numRuns: 150, examples: DST_EDGES },
    );
  });

  it('plans from now to the horizon, at least the next ten, with the indices of the whole series', () => {
    fc.assert(
      fc.property(
        recurrenceCase,
        fc.integer({ min: -30, max: 500 }),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        (c, days, ms) => {
          const dtstart = dtstartOf(c.recurrence);
          const now = new Date(dtstart.epochMilliseconds + days * DAY_MS + ms);
          const planned = plannedOccurrences(c.recurrence, now);
          const first = firstOccurrences(c.recurrence, 1)[0]!;
          const horizonEnd = Math.max(now.getTime(), first.startsAt.getTime()) + HORIZON.weeks * 7 * DAY_MS;

          planned.forEach((occurrence, i) => {
            expect(occurrence.startsAt.getTime()).toBeGreaterThanOrEqual(now.getTime());
            if (i >= HORIZON.minUpcoming)
              expect(occurrence.startsAt.getTime()).toBeLessThanOrEqual(horizonEnd);
            if (i > 0) {
              expect(occurrence.index).toBe(planned[i - 1]!.index + 1);
              expect(occurrence.startsAt.getTime()).toBeGreaterThan(planned[i - 1]!.startsAt.getTime());
            }
            if (c.count !== undefined) expect(occurrence.index).toBeLessThan(c.count);
          });

          // The same index is the same occurrence as expanding the series from its start gives.
          const last = planned.at(-1)?.index ?? -1;
          const whole = firstOccurrences(
            c.recurrence,
            Math.max(last + 1, planned.length === 0 ? 0 : 1) + HORIZON.minUpcoming,
          );
          for (const occurrence of planned) expect(whole[occurrence.index]).toEqual(occurrence);
          // Nothing between now and the first planned one was left out, and at least ten are planned
          // while the series has them.
          const upcoming = whole.filter((occurrence) => occurrence.startsAt.getTime() >= now.getTime());
          expect(planned.length).toBeGreaterThanOrEqual(Math.min(HORIZON.minUpcoming, upcoming.length));
          if (planned.length > 0) expect(upcoming[0]).toEqual(planned[0]);
        },
      ),
      { numRuns: 100 },
    );
  });
});

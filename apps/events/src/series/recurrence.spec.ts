import {
  HORIZON,
  RecurrenceSchema,
  extensionDue,
  firstOccurrences,
  plannedOccurrences,
} from './recurrence.js';
import type { Occurrence, RecurrenceInput } from './recurrence.js';
import { normaliseRrule } from './rrule.js';

const DAY_MS = 86_400_000;

function rec(startsAt: string, timezone: string, rrule: string): RecurrenceInput {
  return { startsAt, timezone, rrule };
}

const instants = (list: Occurrence[]): string[] => list.map((o) => o.startsAt.toISOString());
const locals = (list: Occurrence[]): string[] => list.map((o) => o.localStart);

/** Issues as "path: message" so a failing test shows which message went where. */
function issues(input: unknown): { path: string; message: string }[] {
  const result = RecurrenceSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('DST: occurrences keep their local wall-clock time', () => {
  it('New York weekly 19:00 across the November change (EDT -> EST)', () => {
    const list = firstOccurrences(
      rec('2026-10-22T19:00', 'America/New_York', 'FREQ=WEEKLY;BYDAY=TH;COUNT=4'),
      10,
    );
    expect(locals(list)).toEqual([
      '2026-10-22T19:00:00',
      '2026-10-29T19:00:00',
      '2026-11-05T19:00:00',
      '2026-11-12T19:00:00',
    ]);
    expect(instants(list)).toEqual([
      '2026-10-22T23:00:00.000Z',
      '2026-10-29T23:00:00.000Z',
      '2026-11-06T00:00:00.000Z',
      '2026-11-13T00:00:00.000Z',
    ]);
    expect(list.map((o) => o.index)).toEqual([0, 1, 2, 3]);
  });

  it('New York weekly 19:00 across the March change (EST -> EDT)', () => {
    const list = firstOccurrences(rec('2027-03-04T19:00', 'America/New_York', 'FREQ=WEEKLY;COUNT=3'), 10);
    expect(locals(list)).toEqual(['2027-03-04T19:00:00', '2027-03-11T19:00:00', '2027-03-18T19:00:00']);
    expect(instants(list)).toEqual([
      '2027-03-05T00:00:00.000Z',
      '2027-03-12T00:00:00.000Z',
      '2027-03-18T23:00:00.000Z',
    ]);
  });

  it('Berlin weekly across the end of March (CET -> CEST)', () => {
    const list = firstOccurrences(
      rec('2026-03-16T18:30', 'Europe/Berlin', 'FREQ=WEEKLY;BYDAY=MO;COUNT=4'),
      10,
    );
    expect(locals(list)).toEqual([
      '2026-03-16T18:30:00',
      '2026-03-23T18:30:00',
      '2026-03-30T18:30:00',
      '2026-04-06T18:30:00',
    ]);
    expect(instants(list)).toEqual([
      '2026-03-16T17:30:00.000Z',
      '2026-03-23T17:30:00.000Z',
      '2026-03-30T16:30:00.000Z',
      '2026-04-06T16:30:00.000Z',
    ]);
  });

  it('Berlin weekly across the end of October (CEST -> CET)', () => {
    const list = firstOccurrences(rec('2026-10-12T18:30:00', 'Europe/Berlin', 'FREQ=WEEKLY;COUNT=4'), 10);
    expect(locals(list)).toEqual([
      '2026-10-12T18:30:00',
      '2026-10-19T18:30:00',
      '2026-10-26T18:30:00',
      '2026-11-02T18:30:00',
    ]);
    expect(instants(list)).toEqual([
      '2026-10-12T16:30:00.000Z',
      '2026-10-19T16:30:00.000Z',
      '2026-10-26T17:30:00.000Z',
      '2026-11-02T17:30:00.000Z',
    ]);
  });

  it('a start inside the spring-forward gap moves forward (02:30 -> 03:30) and the series keeps 03:30', () => {
    // 2027-03-14 02:00 EST jumps to 03:00 EDT: 02:30 does not exist. Temporal 'compatible'
    // disambiguation (the RFC 5545 rule for an explicit DTSTART) shifts it forward by the gap.
    const list = firstOccurrences(rec('2027-03-14T02:30', 'America/New_York', 'FREQ=DAILY;COUNT=3'), 10);
    expect(locals(list)).toEqual(['2027-03-14T03:30:00', '2027-03-15T03:30:00', '2027-03-16T03:30:00']);
    expect(instants(list)).toEqual([
      '2027-03-14T07:30:00.000Z',
      '2027-03-15T07:30:00.000Z',
      '2027-03-16T07:30:00.000Z',
    ]);
  });

  it('a later occurrence that falls into the gap is skipped and not counted (RFC 5545)', () => {
    // Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST, so 02:30 that day does not exist.
    const list = firstOccurrences(rec('2026-03-27T02:30', 'Europe/Berlin', 'FREQ=DAILY;COUNT=4'), 10);
    expect(locals(list)).toEqual([
      '2026-03-27T02:30:00',
      '2026-03-28T02:30:00',
      '2026-03-30T02:30:00',
      '2026-03-31T02:30:00',
    ]);
    expect(instants(list)).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
  });

  it('a repeated local time when clocks fall back takes its first (earlier) instant', () => {
    // Berlin 2026-10-25: 03:00 CEST falls back to 02:00 CET, so 02:30 happens twice.
    const list = firstOccurrences(rec('2026-10-24T02:30', 'Europe/Berlin', 'FREQ=DAILY;COUNT=3'), 10);
    expect(locals(list)).toEqual(['2026-10-24T02:30:00', '2026-10-25T02:30:00', '2026-10-26T02:30:00']);
    expect(instants(list)).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });
});

describe('monthly rules', () => {
  it('BYMONTHDAY=31 skips months without a 31st', () => {
    const list = firstOccurrences(
      rec('2026-01-31T10:00', 'Europe/Berlin', 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7'),
      20,
    );
    expect(locals(list)).toEqual([
      '2026-01-31T10:00:00',
      '2026-03-31T10:00:00',
      '2026-05-31T10:00:00',
      '2026-07-31T10:00:00',
      '2026-08-31T10:00:00',
      '2026-10-31T10:00:00',
      '2026-12-31T10:00:00',
    ]);
    expect(instants(list)).toEqual([
      '2026-01-31T09:00:00.000Z',
      '2026-03-31T08:00:00.000Z',
      '2026-05-31T08:00:00.000Z',
      '2026-07-31T08:00:00.000Z',
      '2026-08-31T08:00:00.000Z',
      '2026-10-31T09:00:00.000Z',
      '2026-12-31T09:00:00.000Z',
    ]);
  });

  it('BYDAY with an ordinal: last Friday and first Monday', () => {
    const lastFriday = firstOccurrences(
      rec('2026-10-01T12:00', 'UTC', 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=3'),
      10,
    );
    expect(locals(lastFriday)).toEqual(['2026-10-30T12:00:00', '2026-11-27T12:00:00', '2026-12-25T12:00:00']);
    const firstMonday = firstOccurrences(
      rec('2026-10-01T12:00', 'UTC', 'FREQ=MONTHLY;BYDAY=+1MO;COUNT=2'),
      10,
    );
    expect(locals(firstMonday)).toEqual(['2026-10-05T12:00:00', '2026-11-02T12:00:00']);
  });

  it('BYDAY and BYMONTHDAY together mean both must match (Friday the 13th)', () => {
    const list = firstOccurrences(
      rec('2026-01-01T10:00', 'UTC', 'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=3'),
      10,
    );
    expect(locals(list)).toEqual(['2026-02-13T10:00:00', '2026-03-13T10:00:00', '2026-11-13T10:00:00']);
  });

  it('a start that does not match BYDAY is not itself an occurrence; index 0 is the first match', () => {
    const list = firstOccurrences(
      rec('2026-10-22T19:00', 'America/New_York', 'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3'),
      10,
    );
    expect(locals(list)).toEqual(['2026-10-26T19:00:00', '2026-10-28T19:00:00', '2026-11-02T19:00:00']);
    expect(list[0]?.index).toBe(0);
  });
});

describe('UNTIL', () => {
  it('a date UNTIL includes the whole local day', () => {
    const list = firstOccurrences(
      rec('2026-10-22T23:30', 'America/New_York', 'FREQ=DAILY;UNTIL=20261024'),
      10,
    );
    // 2026-10-24T23:30 New York is 2026-10-25T03:30Z, already the next day in UTC.
    expect(locals(list)).toEqual(['2026-10-22T23:30:00', '2026-10-23T23:30:00', '2026-10-24T23:30:00']);
  });

  it('a UTC date-time UNTIL is inclusive at the exact instant', () => {
    const list = firstOccurrences(
      rec('2026-10-22T19:00', 'America/New_York', 'FREQ=DAILY;UNTIL=20261024T230000Z'),
      10,
    );
    expect(instants(list)).toEqual([
      '2026-10-22T23:00:00.000Z',
      '2026-10-23T23:00:00.000Z',
      '2026-10-24T23:00:00.000Z',
    ]);
    const justBefore = firstOccurrences(
      rec('2026-10-22T19:00', 'America/New_York', 'FREQ=DAILY;UNTIL=20261024T225959Z'),
      10,
    );
    expect(justBefore).toHaveLength(2);
  });
});

describe('plannedOccurrences: the horizon', () => {
  it('a daily series starting tomorrow: everything through first + 84 days, boundary inclusive', () => {
    const now = new Date('2026-05-10T12:00:00Z');
    const list = plannedOccurrences(rec('2026-05-11T09:00', 'Europe/Berlin', 'FREQ=DAILY'), now);
    // first = 2026-05-11T07:00Z; horizonEnd = first + 84 days = 2026-08-03T07:00Z (no DST change between).
    expect(list).toHaveLength(85);
    expect(list[0]).toEqual({
      index: 0,
      startsAt: new Date('2026-05-11T07:00:00Z'),
      localStart: '2026-05-11T09:00:00',
    });
    expect(list.at(-1)).toEqual({
      index: 84,
      startsAt: new Date('2026-08-03T07:00:00Z'),
      localStart: '2026-08-03T09:00:00',
    });
    expect(list.map((o) => o.index)).toEqual(Array.from({ length: 85 }, (_, i) => i));
  });

  it('measures the 12 weeks in absolute time, so a fall-back change in between drops the last local day', () => {
    const now = new Date('2026-09-30T12:00:00Z');
    const list = plannedOccurrences(rec('2026-10-01T19:00', 'America/New_York', 'FREQ=DAILY'), now);
    // first = 2026-10-01T23:00Z, horizonEnd = 2026-12-24T23:00Z; 2026-12-24 19:00 EST is 2026-12-25T00:00Z.
    expect(list).toHaveLength(84);
    expect(list.at(-1)?.localStart).toBe('2026-12-23T19:00:00');
  });

  it('a monthly series gets at least the next 10 occurrences although 12 weeks cover only 3', () => {
    const now = new Date('2026-05-10T12:00:00Z');
    const list = plannedOccurrences(rec('2026-05-11T10:00', 'Europe/Berlin', 'FREQ=MONTHLY'), now);
    const horizonEnd = new Date('2026-05-11T08:00:00Z').getTime() + HORIZON.weeks * 7 * DAY_MS;
    expect(list.filter((o) => o.startsAt.getTime() <= horizonEnd)).toHaveLength(3);
    expect(list).toHaveLength(HORIZON.minUpcoming);
    expect(locals(list)).toEqual([
      '2026-05-11T10:00:00',
      '2026-06-11T10:00:00',
      '2026-07-11T10:00:00',
      '2026-08-11T10:00:00',
      '2026-09-11T10:00:00',
      '2026-10-11T10:00:00',
      '2026-11-11T10:00:00',
      '2026-12-11T10:00:00',
      '2027-01-11T10:00:00',
      '2027-02-11T10:00:00',
    ]);
    expect(list.at(-1)?.startsAt.toISOString()).toBe('2027-02-11T09:00:00.000Z');
  });

  it('a series that started in the past: past occurrences excluded, indices unchanged, horizon from now', () => {
    const recurrence = rec('2026-01-05T18:00', 'Europe/Berlin', 'FREQ=WEEKLY');
    const now = new Date('2026-03-04T12:00:00Z');
    const list = plannedOccurrences(recurrence, now);
    // Past: Jan 5, 12, 19, 26, Feb 2, 9, 16, 23, Mar 2 = 9. horizonEnd = now + 84 days = 2026-05-27T12:00Z.
    expect(list[0]).toEqual({
      index: 9,
      startsAt: new Date('2026-03-09T17:00:00Z'),
      localStart: '2026-03-09T18:00:00',
    });
    expect(list.at(-1)).toEqual({
      index: 20,
      startsAt: new Date('2026-05-25T16:00:00Z'),
      localStart: '2026-05-25T18:00:00',
    });
    expect(list).toEqual(firstOccurrences(recurrence, 21).slice(9));
  });

  it('counts indices from the start even for a series older than the library default of 10,000 periods', () => {
    const list = plannedOccurrences(
      rec('1996-01-01T19:00', 'America/New_York', 'FREQ=DAILY'),
      new Date('2026-01-01T00:00:00Z'),
    );
    // 1996-01-01 .. 2025-12-31 is 10,957 days (8 leap days); 2025-12-31 19:00 EST is 2026-01-01T00:00Z.
    expect(list[0]).toEqual({
      index: 10_957,
      startsAt: new Date('2026-01-01T00:00:00Z'),
      localStart: '2025-12-31T19:00:00',
    });
    expect(list).toHaveLength(85);
  });

  it('finds 10 upcoming occurrences of a very sparse rule (a fifth Monday in February)', () => {
    const list = plannedOccurrences(
      rec('2026-02-01T10:00', 'Europe/Berlin', 'FREQ=MONTHLY;INTERVAL=12;BYDAY=5MO'),
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(locals(list)).toEqual([
      '2044-02-29T10:00:00',
      '2072-02-29T10:00:00',
      '2112-02-29T10:00:00',
      '2140-02-29T10:00:00',
      '2168-02-29T10:00:00',
      '2196-02-29T10:00:00',
      '2208-02-29T10:00:00',
      '2236-02-29T10:00:00',
      '2264-02-29T10:00:00',
      '2292-02-29T10:00:00',
    ]);
  });

  it('includes an occurrence that starts exactly at now', () => {
    const list = plannedOccurrences(
      rec('2026-01-05T18:00', 'UTC', 'FREQ=WEEKLY'),
      new Date('2026-01-12T18:00:00Z'),
    );
    expect(list[0]).toEqual({
      index: 1,
      startsAt: new Date('2026-01-12T18:00:00Z'),
      localStart: '2026-01-12T18:00:00',
    });
  });

  it('COUNT=3 returns only 3, and only the future ones once it has started', () => {
    const recurrence = rec('2026-05-11T09:00', 'Europe/Berlin', 'FREQ=DAILY;COUNT=3');
    expect(instants(plannedOccurrences(recurrence, new Date('2026-05-10T00:00:00Z')))).toEqual([
      '2026-05-11T07:00:00.000Z',
      '2026-05-12T07:00:00.000Z',
      '2026-05-13T07:00:00.000Z',
    ]);
    const later = plannedOccurrences(recurrence, new Date('2026-05-11T08:00:00Z'));
    expect(later.map((o) => o.index)).toEqual([1, 2]);
    expect(plannedOccurrences(recurrence, new Date('2026-06-01T00:00:00Z'))).toEqual([]);
  });

  it('UNTIL caps the horizon even below 10 occurrences', () => {
    const list = plannedOccurrences(
      rec('2026-05-11T09:00', 'Europe/Berlin', 'FREQ=DAILY;UNTIL=20260516'),
      new Date('2026-05-10T12:00:00Z'),
    );
    expect(locals(list)).toEqual([
      '2026-05-11T09:00:00',
      '2026-05-12T09:00:00',
      '2026-05-13T09:00:00',
      '2026-05-14T09:00:00',
      '2026-05-15T09:00:00',
      '2026-05-16T09:00:00',
    ]);
  });

  it('agrees with a brute-force expansion from the start for assorted rules, zones and nows', () => {
    // plannedOccurrences uses the library's between()/next(); firstOccurrences uses all(). The two
    // are separate code paths in rrule-temporal, so this guards the windowed queries.
    const cases: RecurrenceInput[] = [
      rec('2026-03-01T02:30', 'America/New_York', 'FREQ=DAILY;INTERVAL=3'),
      rec('2026-01-31T10:00', 'Europe/Berlin', 'FREQ=MONTHLY;BYMONTHDAY=31,-1'),
      rec('2026-02-10T19:00', 'America/New_York', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH,SU'),
      rec('2026-01-01T09:15', 'Australia/Lord_Howe', 'FREQ=MONTHLY;BYDAY=1MO,-1FR'),
      rec('2026-01-01T00:30', 'America/Sao_Paulo', 'FREQ=DAILY;BYDAY=MO,FR;COUNT=60'),
      rec('2026-01-01T08:00', 'Asia/Kolkata', 'FREQ=WEEKLY;UNTIL=20261231'),
    ];
    const nows = [
      '2025-12-01T00:00:00Z',
      '2026-03-08T07:30:00Z',
      '2026-07-01T12:00:00Z',
      '2026-11-01T06:30:00Z',
    ];
    for (const recurrence of cases) {
      const all = firstOccurrences(recurrence, 400);
      const first = all[0]!.startsAt.getTime();
      for (const nowIso of nows) {
        const now = new Date(nowIso);
        const horizonEnd = Math.max(now.getTime(), first) + HORIZON.weeks * 7 * DAY_MS;
        const future = all.filter((o) => o.startsAt.getTime() >= now.getTime());
        const expected = future.filter(
          (o, i) => o.startsAt.getTime() <= horizonEnd || i < HORIZON.minUpcoming,
        );
        expect({ recurrence, nowIso, list: plannedOccurrences(recurrence, now) }).toEqual({
          recurrence,
          nowIso,
          list: expected,
        });
      }
    }
  });

  it('rejects invalid input and an invalid now', () => {
    expect(() => plannedOccurrences(rec('2026-02-30T10:00', 'UTC', 'FREQ=DAILY'), new Date())).toThrow(
      RangeError,
    );
    expect(() =>
      plannedOccurrences(rec('2026-02-10T10:00', 'UTC', 'FREQ=DAILY'), new Date(Number.NaN)),
    ).toThrow(RangeError);
    expect(() => firstOccurrences(rec('2026-02-10T10:00', 'UTC', 'FREQ=DAILY'), -1)).toThrow(RangeError);
    expect(firstOccurrences(rec('2026-02-10T10:00', 'UTC', 'FREQ=DAILY'), 0)).toEqual([]);
  });
});

describe('RecurrenceSchema', () => {
  const valid = rec('2026-10-22T19:00', 'America/New_York', 'FREQ=WEEKLY;BYDAY=TH');

  it.each([
    ['2026-10-22T19:00', valid.rrule],
    ['2026-10-22T19:00:30', valid.rrule],
    [valid.startsAt, 'rrule:freq=weekly;byday=th;interval=2'],
    [valid.startsAt, 'RRULE:FREQ=MONTHLY;BYDAY=-1FR,2MO;COUNT=10'],
    [valid.startsAt, 'FREQ=MONTHLY;BYMONTHDAY=1,-1,15'],
    [valid.startsAt, 'FREQ=DAILY;UNTIL=20261022'],
    [valid.startsAt, 'FREQ=DAILY;UNTIL=20261022T230000Z'],
    [valid.startsAt, 'FREQ=DAILY;INTERVAL=99;COUNT=1000'],
  ])('accepts startsAt %s with rrule %s', (startsAt, rrule) => {
    expect(issues({ ...valid, startsAt, rrule })).toEqual([]);
  });

  it('accepts UTC and other zone names the runtime knows', () => {
    for (const timezone of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires']) {
      expect(issues({ ...valid, timezone })).toEqual([]);
    }
  });

  it.each([
    ['2025-02-30T10:00', 'not a real calendar date'],
    ['2025-04-31T10:00', 'not a real calendar date'],
    ['2025-01-01T24:00', 'not a real calendar date'],
    ['2025-01-01T10:60', 'not a real calendar date'],
    ['2025-01-01T10:00:60', 'not a real calendar date'],
    ['2025-01-01T10:00Z', 'without Z or an offset'],
    ['2025-01-01T10:00:00+01:00', 'without Z or an offset'],
    ['2025-01-01T10:00:00-0500', 'without Z or an offset'],
    ['2025-01-01', 'local date-time like'],
    ['2025-01-01 10:00', 'local date-time like'],
    ['2025-1-1T10:00', 'local date-time like'],
    ['2025-01-01T10:00:00.000', 'local date-time like'],
    ['', 'local date-time like'],
  ])('rejects startsAt %j', (startsAt, message) => {
    expect(issues({ ...valid, startsAt })).toEqual([
      { path: 'startsAt', message: expect.stringContaining(message) },
    ]);
  });

  it.each([
    ['', 'must not be empty'],
    ['Mars/Olympus_Mons', 'not a known IANA time zone'],
    ['Europe/Berlin ', 'not a known IANA time zone'],
    ['+01:00', 'not an offset'],
    ['-05:00', 'not an offset'],
  ])('rejects timezone %j', (timezone, message) => {
    expect(issues({ ...valid, timezone })).toEqual([
      { path: 'timezone', message: expect.stringContaining(message) },
    ]);
  });

  it.each([
    ['', 'must not be empty'],
    ['RRULE:', 'must not be empty'],
    ['FREQ=YEARLY', 'FREQ must be one of DAILY, WEEKLY, MONTHLY'],
    ['FREQ=HOURLY', 'FREQ must be one of DAILY, WEEKLY, MONTHLY'],
    ['INTERVAL=2', 'must have a FREQ part'],
    ['FREQ=DAILY;BYSETPOS=1', 'BYSETPOS is not supported'],
    ['FREQ=DAILY;BYHOUR=9', 'BYHOUR is not supported'],
    ['FREQ=DAILY;WKST=SU', 'WKST is not supported'],
    ['FREQ=DAILY;DTSTART=20260101T100000', 'DTSTART is not allowed'],
    ['FREQ=DAILY;FREQ=WEEKLY', 'FREQ appears more than once'],
    ['FREQ=DAILY;COUNT=2;COUNT=3', 'COUNT appears more than once'],
    ['FREQ=DAILY;', 'is not NAME=VALUE'],
    ['FREQ', 'is not NAME=VALUE'],
    ['FREQ=DAILY;INTERVAL=', 'INTERVAL has no value'],
    ['FREQ=DAILY; COUNT=2', 'must not contain spaces'],
    ['FREQ=DAILY;INTERVAL=0', 'INTERVAL must be from 1 to 99'],
    ['FREQ=DAILY;INTERVAL=100', 'INTERVAL must be from 1 to 99'],
    ['FREQ=DAILY;INTERVAL=-1', 'INTERVAL must be a whole number'],
    ['FREQ=DAILY;INTERVAL=1.5', 'INTERVAL must be a whole number'],
    ['FREQ=DAILY;INTERVAL=two', 'INTERVAL must be a whole number'],
    ['FREQ=WEEKLY;BYDAY=XX', 'BYDAY value "XX" is not a weekday'],
    ['FREQ=WEEKLY;BYDAY=MO,,TU', 'BYDAY value "" is not a weekday'],
    ['FREQ=WEEKLY;BYDAY=1MO', 'only allowed with FREQ=MONTHLY'],
    ['FREQ=DAILY;BYDAY=-1FR', 'only allowed with FREQ=MONTHLY'],
    ['FREQ=MONTHLY;BYDAY=0MO', 'ordinal from -5 to 5'],
    ['FREQ=MONTHLY;BYDAY=6MO', 'ordinal from -5 to 5'],
    ['FREQ=MONTHLY;BYDAY=-6MO', 'ordinal from -5 to 5'],
    ['FREQ=MONTHLY;BYDAY=+MO', 'sign but no number'],
    ['FREQ=WEEKLY;BYMONTHDAY=1', 'BYMONTHDAY is only allowed with FREQ=MONTHLY'],
    ['FREQ=DAILY;BYMONTHDAY=1', 'BYMONTHDAY is only allowed with FREQ=MONTHLY'],
    ['FREQ=MONTHLY;BYMONTHDAY=32', 'from 1 to 31 or from -31 to -1'],
    ['FREQ=MONTHLY;BYMONTHDAY=0', 'from 1 to 31 or from -31 to -1'],
    ['FREQ=MONTHLY;BYMONTHDAY=-32', 'from 1 to 31 or from -31 to -1'],
    ['FREQ=MONTHLY;BYMONTHDAY=1,x', 'BYMONTHDAY value "X"'],
    ['FREQ=DAILY;COUNT=0', 'COUNT must be from 1 to 1000'],
    ['FREQ=DAILY;COUNT=1001', 'COUNT must be from 1 to 1000'],
    ['FREQ=DAILY;UNTIL=20270231', 'not a real calendar date'],
    ['FREQ=DAILY;UNTIL=20271231T250000Z', 'not a real calendar date or time'],
    ['FREQ=DAILY;UNTIL=20271231T100000', 'a time in UNTIL must be in UTC'],
    ['FREQ=DAILY;UNTIL=2027-12-31', 'UNTIL must be a date like 20261231'],
    ['FREQ=DAILY;COUNT=3;UNTIL=20271231', 'COUNT and UNTIL cannot both be given'],
    ['FREQ=DAILY;UNTIL=20261021', 'UNTIL 20261021 is before startsAt'],
    ['FREQ=DAILY;UNTIL=20261022T225959Z', 'UNTIL 20261022T225959Z is before startsAt'],
    ['FREQ=WEEKLY;BYDAY=MO;UNTIL=20261025', 'produces no occurrence'],
  ])('rejects rrule %j', (rrule, message) => {
    expect(issues({ ...valid, rrule })).toEqual([
      { path: 'rrule', message: expect.stringContaining(message) },
    ]);
  });

  it.each([
    ['2026-04-01T10:00', 'FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=31'],
    ['2026-02-01T10:00', 'FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30,31;COUNT=5'],
    ['2026-10-22T10:00', 'FREQ=DAILY;INTERVAL=7;BYDAY=MO'],
  ])('rejects a rule that can never match (from %s: %s)', (startsAt, rrule) => {
    expect(issues(rec(startsAt, 'UTC', rrule))).toEqual([
      { path: 'rrule', message: expect.stringContaining('never produces an occurrence') },
    ]);
  });

  it('reports every problem in the rule, each naming its part', () => {
    const found = issues({ ...valid, rrule: 'FREQ=YEARLY;BYSETPOS=1;BYHOUR=9;INTERVAL=0' });
    expect(found.map((i) => i.path)).toEqual(['rrule', 'rrule', 'rrule', 'rrule']);
    expect(found.map((i) => i.message)).toEqual([
      expect.stringContaining('BYSETPOS'),
      expect.stringContaining('BYHOUR'),
      expect.stringContaining('FREQ must be one of'),
      expect.stringContaining('INTERVAL must be from 1 to 99'),
    ]);
  });

  it('reports problems in all three fields at once', () => {
    expect(
      issues({ startsAt: '2025-02-30T10:00', timezone: 'Nowhere/Land', rrule: 'FREQ=YEARLY' }).map(
        (i) => i.path,
      ),
    ).toEqual(['startsAt', 'timezone', 'rrule']);
  });

  it('is strict about the object shape', () => {
    expect(issues({ ...valid, extra: 1 })).toEqual([{ path: '', message: expect.stringContaining('extra') }]);
    expect(issues({ startsAt: valid.startsAt, timezone: valid.timezone }).map((i) => i.path)).toEqual([
      'rrule',
    ]);
    expect(issues({ ...valid, startsAt: 1_700_000_000 }).map((i) => i.path)).toEqual(['startsAt']);
  });
});

describe('normaliseRrule', () => {
  it.each([
    ['FREQ=WEEKLY', 'FREQ=WEEKLY'],
    ['rrule:byday=fr,mo,mo;freq=weekly;interval=01;count=5', 'FREQ=WEEKLY;BYDAY=MO,FR;COUNT=5'],
    ['RRULE:FREQ=DAILY;INTERVAL=1;UNTIL=20261231t235959z', 'FREQ=DAILY;UNTIL=20261231T235959Z'],
    [
      'UNTIL=20261231;BYMONTHDAY=-1,15,+1,01;FREQ=MONTHLY;INTERVAL=2',
      'FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=1,15,-1;UNTIL=20261231',
    ],
    ['FREQ=MONTHLY;BYDAY=-1FR,MO,+2MO,1MO,-1MO', 'FREQ=MONTHLY;BYDAY=MO,1MO,2MO,-1MO,-1FR'],
  ])('%s -> %s', (input, output) => {
    expect(normaliseRrule(input)).toBe(output);
    expect(normaliseRrule(output)).toBe(output);
  });

  it('expands exactly like the original rule', () => {
    const original = 'count=12;byday=we,-1fr;freq=monthly';
    const expand = (rrule: string) => firstOccurrences(rec('2026-01-01T18:00', 'Europe/Berlin', rrule), 20);
    expect(expand(normaliseRrule(original))).toEqual(expand(original));
  });

  it('throws on a rule outside the subset', () => {
    expect(() => normaliseRrule('FREQ=YEARLY')).toThrow(RangeError);
    expect(() => normaliseRrule('FREQ=DAILY;BYSETPOS=1')).toThrow(/BYSETPOS/);
  });
});

describe('the end of storable time', () => {
  it('refuses a series that starts after 9999-11-30 in UTC (no occurrence could end within 9999)', () => {
    expect(issues(rec('9999-12-31T23:00:00', 'Pacific/Kiritimati', 'FREQ=WEEKLY'))).toEqual([
      { path: 'startsAt', message: expect.stringMatching(/^startsAt must be before 9999-11-30/) },
    ]);
  });

  it('stops a series at the end of 9999: no occurrence starts later than 31 days before it', () => {
    const last = Date.parse('9999-12-31T23:59:59.999Z') - 31 * DAY_MS;
    const planned = plannedOccurrences(
      rec('9999-10-01T12:00:00', 'UTC', 'FREQ=DAILY'),
      new Date('9999-10-01T00:00:00Z'),
    );
    expect(planned.length).toBeGreaterThan(0);
    expect(planned.every((o) => o.startsAt.getTime() <= last)).toBe(true);
    expect(instants(planned).at(-1)).toBe('9999-11-30T12:00:00.000Z');
  });
});

describe('extensionDue: when a series needs extending next', () => {
  const weekly = rec('2027-01-07T19:00', 'UTC', 'FREQ=WEEKLY');

  it('is when the next occurrence comes within the horizon', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    const planned = plannedOccurrences(weekly, now);
    expect(planned).toHaveLength(13); // 2027-01-07 .. 2027-04-01, 12 weeks past the first
    // The 14th (2027-04-08T19:00Z) comes within 12 weeks on 2027-01-14T19:00Z.
    expect(extensionDue(weekly, planned, now)?.toISOString()).toBe('2027-01-14T19:00:00.000Z');
    // Planned then, it is planned; a moment before, it is not.
    const due = extensionDue(weekly, planned, now)!;
    expect(plannedOccurrences(weekly, due).at(-1)!.index).toBe(13);
    expect(plannedOccurrences(weekly, new Date(due.getTime() - 1)).at(-1)!.index).toBe(12);
  });

  it('is when fewer than ten would be upcoming, for a series whose horizon holds fewer', () => {
    const monthly = rec('2027-03-01T18:00', 'UTC', 'FREQ=MONTHLY');
    const now = new Date('2027-02-01T00:00:00Z');
    const planned = plannedOccurrences(monthly, now);
    expect(planned).toHaveLength(10);
    // Once the first (2027-03-01) has started, nine are upcoming: the eleventh is due then.
    expect(extensionDue(monthly, planned, now)?.toISOString()).toBe('2027-03-01T18:00:00.000Z');
  });

  it('is never, once COUNT or UNTIL leaves nothing after the last planned one', () => {
    const counted = rec('2027-01-07T19:00', 'UTC', 'FREQ=WEEKLY;COUNT=4');
    const now = new Date('2027-01-01T00:00:00Z');
    expect(extensionDue(counted, plannedOccurrences(counted, now), now)).toBeNull();
    const until = rec('2027-01-07T19:00', 'UTC', 'FREQ=DAILY;UNTIL=20270110');
    expect(extensionDue(until, plannedOccurrences(until, now), now)).toBeNull();
    expect(extensionDue(weekly, [], now)).toBeNull();
  });

  it('is never sooner than a minute from now, so one pass cannot take a series twice', () => {
    const daily = rec('2027-01-01T00:00', 'UTC', 'FREQ=DAILY');
    const now = new Date('2027-01-01T00:00:00Z');
    const planned = plannedOccurrences(daily, now);
    // The 86th (2027-03-27) comes within 12 weeks a day from now.
    expect(extensionDue(daily, planned, now)?.toISOString()).toBe('2027-01-02T00:00:00.000Z');
    // A pass that finds a due time already come (a clock that jumped back) still moves it past now.
    const later = new Date('2027-01-05T00:00:00Z');
    expect(extensionDue(daily, planned, later)?.toISOString()).toBe('2027-01-05T00:01:00.000Z');
  });
});

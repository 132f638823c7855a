import { jest } from '@jest/globals';
import ICAL from 'ical.js';
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';

import { CALENDAR_CONTENT_TYPE, renderCalendar } from './ics.js';
import type { CalendarEvent, CalendarOptions } from './ics.js';

type Component = InstanceType<typeof ICAL.Component>;

const OPTIONS: CalendarOptions = { name: 'Townhall', baseUrl: 'http://localhost:3000' };

function event(overrides: Partial<CalendarEvent> = {}): CalendarEvent {
  const id = overrides.id ?? 'evt_1';
  return {
    id,
    title: 'Weekly agent sync',
    description: 'Agenda: status',
    startsAt: '2026-11-05T00:00:00.000Z',
    endsAt: '2026-11-05T01:00:00.000Z',
    timezone: 'America/New_York',
    status: 'scheduled',
    createdAt: '2026-01-02T03:04:05.000Z',
    updatedAt: '2026-02-03T04:05:06.789Z',
    sequence: 0,
    url: `http://localhost:3000/events/${id}`,
    hostId: 'agent_host_1',
    seriesId: null,
    ...overrides,
  };
}

/** Parses like a client would: the file's own VTIMEZONEs are registered, nothing else. */
function parse(ics: string): Component {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(vtimezone);
  return calendar;
}

function vevents(ics: string): InstanceType<typeof ICAL.Event>[] {
  return parse(ics)
    .getAllSubcomponents('vevent')
    .map((vevent) => new ICAL.Event(vevent));
}

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

/** Content lines with folding undone. */
function contentLines(ics: string): string[] {
  return ics.replace(/\r\n[ \t]/g, '').split('\r\n');
}

function line(ics: string, name: string, uid: string): string {
  const lines = contentLines(ics);
  const begin = lines.indexOf(`UID:${uid}`);
  const end = lines.indexOf('END:VEVENT', begin);
  return only(lines.slice(begin, end).filter((l) => l.startsWith(`${name}:`) || l.startsWith(`${name};`)));
}

function instant(time: InstanceType<typeof ICAL.Time>): string {
  return time.toJSDate().toISOString();
}

beforeEach(() => {
  ICAL.TimezoneService.reset();
});

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

describe('renderCalendar: calendar', () => {
  it('writes PRODID, VERSION, METHOD and the calendar name', () => {
    const calendar = parse(renderCalendar([event()], OPTIONS));
    expect(calendar.name).toBe('vcalendar');
    expect(calendar.getFirstPropertyValue('prodid')).toBe('-//Townhall//Townhall Events//EN');
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('Townhall');
  });

  it('escapes the calendar name, which ical-generator does not', () => {
    const ics = renderCalendar([], { ...OPTIONS, name: 'Series: a, b; c\nd' });
    expect(contentLines(ics)).toContain('X-WR-CALNAME:Series: a\\, b\\; c\\nd');
  });

  it('uses CRLF line endings throughout, including after the last line', () => {
    const ics = renderCalendar([event()], OPTIONS);
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('exports the content type', () => {
    expect(CALENDAR_CONTENT_TYPE).toBe('text/calendar; charset=utf-8');
  });

  it('renders an empty list as a valid empty VCALENDAR', () => {
    const ics = renderCalendar([], OPTIONS);
    const calendar = parse(ics);
    expect(calendar.name).toBe('vcalendar');
    expect(calendar.getAllSubcomponents()).toHaveLength(0);
    expect(calendar.getFirstPropertyValue('prodid')).toBe('-//Townhall//Townhall Events//EN');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(ics.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n')).toBe(true);
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });
});

describe('renderCalendar: UIDs and determinism', () => {
  it('renders one VEVENT per event with UID <id>@townhall, in input order', () => {
    const ics = renderCalendar(
      [event({ id: 'a' }), event({ id: 'b', timezone: 'Europe/Berlin' }), event({ id: 'c' })],
      OPTIONS,
    );
    expect(vevents(ics).map((e) => e.uid)).toEqual(['a@townhall', 'b@townhall', 'c@townhall']);
  });

  it('keeps UIDs identical across renders and across edits of the event', () => {
    const before = vevents(renderCalendar([event({ id: 'e-42' })], OPTIONS));
    const after = vevents(
      renderCalendar(
        [
          event({
            id: 'e-42',
            title: 'Renamed',
            sequence: 5,
            status: 'cancelled',
            updatedAt: '2026-03-01T00:00:00.000Z',
          }),
        ],
        { name: 'Other name', baseUrl: 'https://townhall.example' },
      ),
    );
    expect(only(before).uid).toBe('e-42@townhall');
    expect(only(after).uid).toBe('e-42@townhall');
  });

  it('gives byte-identical output for identical input, whatever the current time', () => {
    const events = [event({ id: 'a' }), event({ id: 'b', timezone: 'Europe/Berlin', seriesId: 's1' })];
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const first = renderCalendar(events, OPTIONS);
    jest.setSystemTime(new Date('2031-06-15T12:34:56Z'));
    const second = renderCalendar(structuredClone(events), { ...OPTIONS });
    expect(second).toBe(first);
    expect(first).not.toMatch(/2030|2031/);
  });
});

describe('renderCalendar: times', () => {
  it('writes New York local time after the DST change and converts back to the same instant', () => {
    const ics = renderCalendar([event({ id: 'ny' })], OPTIONS);
    expect(line(ics, 'DTSTART', 'ny@townhall')).toBe('DTSTART;TZID=America/New_York:20261104T190000');
    expect(line(ics, 'DTEND', 'ny@townhall')).toBe('DTEND;TZID=America/New_York:20261104T200000');
    const e = only(vevents(ics));
    expect(e.startDate.zone?.tzid).toBe('America/New_York');
    expect(instant(e.startDate)).toBe('2026-11-05T00:00:00.000Z');
    expect(instant(e.endDate)).toBe('2026-11-05T01:00:00.000Z');
    expect(e.startDate.toUnixTime()).toBe(Date.parse('2026-11-05T00:00:00Z') / 1000);
  });

  it('writes New York local time before the DST change (EDT) and converts back', () => {
    const ics = renderCalendar(
      [event({ id: 'edt', startsAt: '2026-10-29T23:00:00.000Z', endsAt: '2026-10-30T00:30:00.000Z' })],
      OPTIONS,
    );
    expect(line(ics, 'DTSTART', 'edt@townhall')).toBe('DTSTART;TZID=America/New_York:20261029T190000');
    expect(line(ics, 'DTEND', 'edt@townhall')).toBe('DTEND;TZID=America/New_York:20261029T203000');
    const e = only(vevents(ics));
    expect(instant(e.startDate)).toBe('2026-10-29T23:00:00.000Z');
    expect(instant(e.endDate)).toBe('2026-10-30T00:30:00.000Z');
  });

  it('writes Europe/Berlin local time on both sides of the spring-forward gap', () => {
    const ics = renderCalendar(
      [
        event({
          id: 'cet',
          timezone: 'Europe/Berlin',
          startsAt: '2026-03-29T00:30:00.000Z',
          endsAt: '2026-03-29T01:30:00.000Z',
        }),
      ],
      OPTIONS,
    );
    expect(line(ics, 'DTSTART', 'cet@townhall')).toBe('DTSTART;TZID=Europe/Berlin:20260329T013000');
    expect(line(ics, 'DTEND', 'cet@townhall')).toBe('DTEND;TZID=Europe/Berlin:20260329T033000');
    const e = only(vevents(ics));
    expect(instant(e.startDate)).toBe('2026-03-29T00:30:00.000Z');
    expect(instant(e.endDate)).toBe('2026-03-29T01:30:00.000Z');
  });

  it("writes a 'UTC' event in UTC form, without TZID or VTIMEZONE", () => {
    const ics = renderCalendar([event({ id: 'utc', timezone: 'UTC' })], OPTIONS);
    expect(line(ics, 'DTSTART', 'utc@townhall')).toBe('DTSTART:20261105T000000Z');
    expect(line(ics, 'DTEND', 'utc@townhall')).toBe('DTEND:20261105T010000Z');
    expect(parse(ics).getAllSubcomponents('vtimezone')).toHaveLength(0);
    const e = only(vevents(ics));
    expect(instant(e.startDate)).toBe('2026-11-05T00:00:00.000Z');
    expect(instant(e.endDate)).toBe('2026-11-05T01:00:00.000Z');
  });

  it('is self-contained: converts with only the VTIMEZONEs of the file itself', () => {
    const ics = renderCalendar([event({ id: 'self' })], OPTIONS);
    ICAL.TimezoneService.reset();
    const e = new ICAL.Event(only(new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents('vevent')));
    expect(ICAL.TimezoneService.has('America/New_York')).toBe(false);
    expect(e.startDate.zone?.tzid).toBe('America/New_York');
    expect(instant(e.startDate)).toBe('2026-11-05T00:00:00.000Z');
  });

  it('writes an alias zone with the TZID of the VTIMEZONE it gets', () => {
    const ics = renderCalendar(
      [event({ id: 'alias', timezone: 'US/Eastern' }), event({ id: 'case', timezone: 'america/new_york' })],
      OPTIONS,
    );
    expect(line(ics, 'DTSTART', 'alias@townhall')).toBe('DTSTART;TZID=America/New_York:20261104T190000');
    expect(line(ics, 'DTSTART', 'case@townhall')).toBe('DTSTART;TZID=America/New_York:20261104T190000');
    expect(parse(ics).getAllSubcomponents('vtimezone')).toHaveLength(1);
  });

  it('falls back to UTC form for a zone it cannot describe, without logging', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const ics = renderCalendar([event({ id: 'nowhere', timezone: 'Nowhere/Land' })], OPTIONS);
    expect(line(ics, 'DTSTART', 'nowhere@townhall')).toBe('DTSTART:20261105T000000Z');
    expect(ics).not.toContain('TZID');
    expect(error).not.toHaveBeenCalled();
  });

  it('uses UTC form in the repeated hour after fall-back, where clients read the wall clock differently', () => {
    const ics = renderCalendar(
      [
        event({ id: 'before', startsAt: '2026-11-01T04:30:00.000Z', endsAt: '2026-11-01T04:45:00.000Z' }),
        // 01:30 EDT and 01:30 EST: the same wall clock twice
        event({ id: 'first', startsAt: '2026-11-01T05:30:00.000Z', endsAt: '2026-11-01T05:45:00.000Z' }),
        event({ id: 'second', startsAt: '2026-11-01T06:30:00.000Z', endsAt: '2026-11-01T06:45:00.000Z' }),
        event({ id: 'after', startsAt: '2026-11-01T07:30:00.000Z', endsAt: '2026-11-01T07:45:00.000Z' }),
      ],
      OPTIONS,
    );
    expect(line(ics, 'DTSTART', 'before@townhall')).toBe('DTSTART;TZID=America/New_York:20261101T003000');
    expect(line(ics, 'DTSTART', 'first@townhall')).toBe('DTSTART:20261101T053000Z');
    expect(line(ics, 'DTSTART', 'second@townhall')).toBe('DTSTART:20261101T063000Z');
    expect(line(ics, 'DTSTART', 'after@townhall')).toBe('DTSTART;TZID=America/New_York:20261101T023000');
    expect(vevents(ics).map((e) => instant(e.startDate))).toEqual([
      '2026-11-01T04:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-01T07:30:00.000Z',
    ]);
  });

  it('uses UTC form when the end, not the start, falls in the repeated hour', () => {
    const ics = renderCalendar(
      [event({ id: 'end', startsAt: '2026-10-31T23:00:00.000Z', endsAt: '2026-11-01T06:30:00.000Z' })],
      OPTIONS,
    );
    expect(line(ics, 'DTSTART', 'end@townhall')).toBe('DTSTART:20261031T230000Z');
    expect(line(ics, 'DTEND', 'end@townhall')).toBe('DTEND:20261101T063000Z');
    expect(ics).not.toContain('BEGIN:VTIMEZONE');
  });

  it('converts back to the exact instant in every zone timezones-ical-library knows', () => {
    const all = tzlib_get_timezones();
    expect(Array.isArray(all)).toBe(true);
    // Aliases are written as their canonical zone (tested above), so the canonical ones cover every case.
    const zones = (all as string[]).filter((zone) => {
      const block = tzlib_get_ical_block(zone);
      return Array.isArray(block) && block[1] === `TZID=${zone}`;
    });
    expect(zones.length).toBeGreaterThan(300);
    // Around the usual northern and southern DST changes, plus mid-season, at odd minutes.
    const starts = [
      '2026-01-15T11:07:00.000Z',
      '2026-03-08T09:23:00.000Z',
      '2026-03-29T01:41:00.000Z',
      '2026-04-05T15:59:00.000Z',
      '2026-07-01T21:13:00.000Z',
      '2026-09-27T13:31:00.000Z',
      '2026-10-25T00:47:00.000Z',
      '2026-11-01T06:17:00.000Z',
      '2027-02-10T04:03:00.000Z',
    ];
    const mismatches: string[] = [];
    let withTzid = 0;
    for (const zone of zones) {
      const events = starts.map((startsAt, i) =>
        event({ id: `${i}`, timezone: zone, startsAt, endsAt: startsAt }),
      );
      const ics = renderCalendar(events, OPTIONS);
      ICAL.TimezoneService.reset();
      if (ics.includes(';TZID=')) withTzid++;
      vevents(ics).forEach((e, i) => {
        if (instant(e.startDate) !== starts[i])
          mismatches.push(`${zone} ${starts[i]}: ${instant(e.startDate)}`);
      });
    }
    expect(mismatches).toEqual([]);
    // The fallback is for the exceptions only.
    expect(withTzid).toBeGreaterThan(zones.length * 0.9);
  });
});

describe('renderCalendar: VTIMEZONEs', () => {
  it('includes exactly one VTIMEZONE per TZID used, and none for zones not used', () => {
    const ics = renderCalendar(
      [
        event({ id: 'ny1' }),
        event({ id: 'ber', timezone: 'Europe/Berlin' }),
        event({ id: 'ny2', startsAt: '2026-10-29T23:00:00.000Z', endsAt: '2026-10-30T00:00:00.000Z' }),
        event({ id: 'tok', timezone: 'Asia/Tokyo' }),
        event({ id: 'utc', timezone: 'UTC' }),
      ],
      OPTIONS,
    );
    const used = new Set([...ics.replace(/\r\n[ \t]/g, '').matchAll(/;TZID=([^:;]+)/g)].map((m) => m[1]));
    const defined = parse(ics)
      .getAllSubcomponents('vtimezone')
      .map((tz) => tz.getFirstPropertyValue('tzid'));
    expect([...used].sort()).toEqual(['America/New_York', 'Asia/Tokyo', 'Europe/Berlin']);
    expect([...defined].sort()).toEqual([...used].sort());
  });
});

describe('renderCalendar: event properties', () => {
  it('writes STATUS:CANCELLED for cancelled events and CONFIRMED otherwise', () => {
    const statuses = ['scheduled', 'live', 'past', 'cancelled'] as const;
    const ics = renderCalendar(
      statuses.map((status) => event({ id: status, status })),
      OPTIONS,
    );
    const parsed = vevents(ics).map((e) => [e.uid, e.component.getFirstPropertyValue('status')]);
    expect(parsed).toEqual([
      ['scheduled@townhall', 'CONFIRMED'],
      ['live@townhall', 'CONFIRMED'],
      ['past@townhall', 'CONFIRMED'],
      ['cancelled@townhall', 'CANCELLED'],
    ]);
  });

  it('writes SEQUENCE, DTSTAMP, CREATED, LAST-MODIFIED, SUMMARY, URL and the Townhall properties', () => {
    const ics = renderCalendar([event({ id: 'p', sequence: 7, seriesId: 'series_9' })], OPTIONS);
    const e = only(vevents(ics));
    expect(e.sequence).toBe(7);
    expect(line(ics, 'SEQUENCE', 'p@townhall')).toBe('SEQUENCE:7');
    expect(line(ics, 'DTSTAMP', 'p@townhall')).toBe('DTSTAMP:20260203T040506Z');
    expect(line(ics, 'CREATED', 'p@townhall')).toBe('CREATED:20260102T030405Z');
    expect(line(ics, 'LAST-MODIFIED', 'p@townhall')).toBe('LAST-MODIFIED:20260203T040506Z');
    expect(e.summary).toBe('Weekly agent sync');
    expect(e.component.getFirstPropertyValue('url')).toBe('http://localhost:3000/events/p');
    expect(e.component.getFirstPropertyValue('x-townhall-host')).toBe('agent_host_1');
    expect(e.component.getFirstPropertyValue('x-townhall-series')).toBe('series_9');
    expect(e.component.getFirstProperty('organizer')).toBeNull();
  });

  it('omits X-TOWNHALL-SERIES for a one-off event', () => {
    const e = only(vevents(renderCalendar([event({ id: 'one-off' })], OPTIONS)));
    expect(e.component.getFirstProperty('x-townhall-series')).toBeNull();
  });

  it('resolves a relative event URL against baseUrl', () => {
    const ics = renderCalendar([event({ id: 'rel', url: '/events/rel' })], OPTIONS);
    expect(only(vevents(ics)).component.getFirstPropertyValue('url')).toBe(
      'http://localhost:3000/events/rel',
    );
  });

  it('rejects a SEQUENCE that is not a non-negative integer', () => {
    expect(() => renderCalendar([event({ sequence: -1 })], OPTIONS)).toThrow(RangeError);
    expect(() => renderCalendar([event({ sequence: 1.5 })], OPTIONS)).toThrow(RangeError);
  });
});

describe('renderCalendar: text', () => {
  it('round-trips commas, semicolons, backslashes, newlines and non-ASCII text exactly', () => {
    const title = 'Sync; agents, humans & 🤖 — café';
    const description =
      'Line one, with commas; and semicolons\nLine two: C:\\path\\to\n\nÜmlaut, ñ, 日本語, 👩🏽‍💻 and 🎉';
    const ics = renderCalendar([event({ id: 'text', title, description })], OPTIONS);
    const e = only(vevents(ics));
    expect(e.summary).toBe(title);
    expect(e.description).toBe(description);
    expect(line(ics, 'SUMMARY', 'text@townhall')).toBe('SUMMARY:Sync\\; agents\\, humans & 🤖 — café');
  });

  it('escapes an id in the UID and still round-trips it', () => {
    const e = only(vevents(renderCalendar([event({ id: 'odd,id;x' })], OPTIONS)));
    expect(e.uid).toBe('odd,id;x@townhall');
  });

  it('folds long lines at 75 octets without splitting characters', () => {
    const description = `${'Long description, with punctuation; '.repeat(20)}${'é😀日'.repeat(60)}\nend`;
    const ics = renderCalendar([event({ id: 'long', description })], OPTIONS);
    const physical = ics.split('\r\n');
    expect(physical.some((l) => l.startsWith(' '))).toBe(true);
    for (const l of physical) expect(Buffer.byteLength(l, 'utf8')).toBeLessThanOrEqual(75);
    expect(physical.join('')).not.toContain('\uFFFD');
    expect(only(vevents(ics)).description).toBe(description);
  });
});

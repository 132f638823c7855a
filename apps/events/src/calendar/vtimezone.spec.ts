import { tzlib_get_ical_block } from 'timezones-ical-library';

import { instantsAt, offsetAt, parseVTimezone } from './vtimezone.js';
import type { VTimezoneRules } from './vtimezone.js';

function rulesFor(zone: string): VTimezoneRules {
  const block = tzlib_get_ical_block(zone);
  if (!Array.isArray(block) || block[0] === undefined) throw new Error(`no VTIMEZONE for ${zone}`);
  const rules = parseVTimezone(block[0]);
  if (!rules) throw new Error(`unparseable VTIMEZONE for ${zone}`);
  return rules;
}

const at = (iso: string): number => Date.parse(iso) / 1000;
/** Local seconds: the wall-clock time read as if it were UTC. */
const local = (wallClock: string): number => Date.parse(`${wallClock}Z`) / 1000;
const HOUR = 3600;

describe('parseVTimezone', () => {
  it('reads a zone with daylight saving time', () => {
    expect(rulesFor('America/New_York').observances).toHaveLength(2);
  });

  it('reads a fixed-offset zone', () => {
    const rules = rulesFor('Asia/Kolkata');
    expect(rules.observances).toHaveLength(1);
    expect(offsetAt(rules, at('2026-06-01T00:00:00Z'))).toBe(5.5 * HOUR);
  });

  it('rejects anything outside the subset timezones-ical-library emits', () => {
    const block = tzlib_get_ical_block('Europe/Berlin');
    const text = Array.isArray(block) ? (block[0] ?? '') : '';
    expect(parseVTimezone(text)).not.toBeNull();
    expect(parseVTimezone(text.replace('BYDAY=-1SU', 'BYDAY=SU'))).toBeNull();
    expect(parseVTimezone(text.replace('RRULE:FREQ=YEARLY', 'RRULE:FREQ=MONTHLY'))).toBeNull();
    expect(parseVTimezone(text.replace('TZNAME:CET', 'RDATE:19800101T000000'))).toBeNull();
    expect(parseVTimezone(text.replace(/TZOFFSETTO:\+0100\r\n/, ''))).toBeNull();
    expect(parseVTimezone(text.replace(/END:STANDARD\r\n/, ''))).toBeNull();
    expect(parseVTimezone('BEGIN:VTIMEZONE\r\nTZID:X\r\nEND:VTIMEZONE')).toBeNull();
  });
});

describe('offsetAt', () => {
  it('follows the US rules: second Sunday of March to first Sunday of November, at 02:00 local', () => {
    const rules = rulesFor('America/New_York');
    expect(offsetAt(rules, at('2026-03-08T06:59:59Z'))).toBe(-5 * HOUR);
    expect(offsetAt(rules, at('2026-03-08T07:00:00Z'))).toBe(-4 * HOUR);
    expect(offsetAt(rules, at('2026-11-01T05:59:59Z'))).toBe(-4 * HOUR);
    expect(offsetAt(rules, at('2026-11-01T06:00:00Z'))).toBe(-5 * HOUR);
  });

  it('follows the EU rules: last Sunday of March and of October, at 01:00 UTC', () => {
    const rules = rulesFor('Europe/Berlin');
    expect(offsetAt(rules, at('2026-03-29T00:59:59Z'))).toBe(HOUR);
    expect(offsetAt(rules, at('2026-03-29T01:00:00Z'))).toBe(2 * HOUR);
    expect(offsetAt(rules, at('2026-10-25T00:59:59Z'))).toBe(2 * HOUR);
    expect(offsetAt(rules, at('2026-10-25T01:00:00Z'))).toBe(HOUR);
  });

  it('handles southern-hemisphere daylight time spanning the new year', () => {
    const rules = rulesFor('Australia/Sydney');
    expect(offsetAt(rules, at('2026-01-15T00:00:00Z'))).toBe(11 * HOUR);
    expect(offsetAt(rules, at('2026-07-15T00:00:00Z'))).toBe(10 * HOUR);
    expect(offsetAt(rules, at('2026-12-31T23:00:00Z'))).toBe(11 * HOUR);
  });

  it('has no offset before the first onset', () => {
    expect(offsetAt(rulesFor('America/New_York'), at('1960-01-01T00:00:00Z'))).toBeNull();
  });
});

describe('instantsAt', () => {
  const rules = rulesFor('America/New_York');

  it('maps an ordinary wall-clock time to one instant', () => {
    expect(instantsAt(rules, local('2026-11-04T19:00:00'))).toEqual([at('2026-11-05T00:00:00Z')]);
    expect(instantsAt(rules, local('2026-10-29T19:00:00'))).toEqual([at('2026-10-29T23:00:00Z')]);
  });

  it('maps a wall-clock time in the spring-forward gap to none', () => {
    expect(instantsAt(rules, local('2026-03-08T02:30:00'))).toEqual([]);
  });

  it('maps a wall-clock time in the repeated hour to both instants, earliest first', () => {
    expect(instantsAt(rules, local('2026-11-01T01:30:00'))).toEqual([
      at('2026-11-01T05:30:00Z'),
      at('2026-11-01T06:30:00Z'),
    ]);
  });
});

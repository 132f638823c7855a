/*
 * A calendar client that honours the embedded VTIMEZONE turns `DTSTART;TZID=...:<wall clock>` back into an
 * instant using that VTIMEZONE's rules, not the server's tz database. timezones-ical-library only emits each
 * zone's current rules projected back to 1970, and its tzdata release differs from the one in Node's ICU, so
 * for some zones and dates the two disagree by an hour (seen: America/Vancouver and America/Edmonton across
 * their 2026 rule change, Africa/Casablanca, Asia/Gaza, Asia/Jerusalem). This module evaluates the VTIMEZONE
 * the way RFC 5545 says a client must, so that the renderer can check a wall-clock time maps back to the
 * intended instant, and only that one, before relying on it.
 *
 * It understands exactly the subset tzlib produces: STANDARD/DAYLIGHT observances with TZOFFSETFROM,
 * TZOFFSETTO, a DTSTART and at most an `RRULE:FREQ=YEARLY;BYMONTH=m;BYDAY=<n><weekday>`. Anything else makes
 * parseVTimezone return null, so callers treat the zone as unverifiable rather than guess.
 *
 * Times are plain numbers: instants are epoch seconds; wall-clock times are the same count read as if the
 * wall clock were UTC ("local seconds").
 */

interface YearlyRule {
  /** 1-12 */
  month: number;
  /** 0 = Sunday, as Date#getUTCDay */
  weekday: number;
  /** 1..5 from the start of the month, -1..-5 from its end */
  nth: number;
}

interface Observance {
  offsetFrom: number;
  offsetTo: number;
  /** Local seconds of DTSTART, the first onset. */
  start: number;
  startYear: number;
  /** Seconds after local midnight at which each recurring onset happens. */
  timeOfDay: number;
  rule: YearlyRule | null;
}

export interface VTimezoneRules {
  readonly observances: readonly Observance[];
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const OFFSET = /^([+-])(\d{2})(\d{2})(\d{2})?$/;
const DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/;
const YEARLY_RULE = /^FREQ=YEARLY;BYMONTH=(\d{1,2});BYDAY=([+-]?[1-5])(SU|MO|TU|WE|TH|FR|SA)$/;

function parseOffset(value: string): number | null {
  const m = OFFSET.exec(value);
  if (!m) return null;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -seconds : seconds;
}

function localSeconds(year: number, month: number, day: number, secondOfDay: number): number {
  return Date.UTC(year, month - 1, day) / 1000 + secondOfDay;
}

interface Draft {
  offsetFrom?: number | null;
  offsetTo?: number | null;
  dtstart?: RegExpExecArray | null;
  rule?: YearlyRule | null;
  invalid?: boolean;
}

function toObservance(draft: Draft): Observance | null {
  const { offsetFrom, offsetTo, dtstart, rule = null } = draft;
  if (draft.invalid || offsetFrom == null || offsetTo == null || !dtstart) return null;
  const [year, month, day, hour, minute, second] = dtstart.slice(1).map(Number);
  if (year === undefined || month === undefined || day === undefined) return null;
  const timeOfDay = (hour ?? 0) * 3600 + (minute ?? 0) * 60 + (second ?? 0);
  return {
    offsetFrom,
    offsetTo,
    start: localSeconds(year, month, day, timeOfDay),
    startYear: year,
    timeOfDay,
    rule,
  };
}

function parseRule(value: string): YearlyRule | null {
  const m = YEARLY_RULE.exec(value);
  if (!m) return null;
  const month = Number(m[1]);
  const nth = Number(m[2]);
  const weekday = WEEKDAYS.indexOf(m[3] ?? '');
  if (month < 1 || month > 12 || nth === 0 || weekday < 0) return null;
  return { month, weekday, nth };
}

/** Parses the VTIMEZONE subset described above; null if the text uses anything beyond it. */
export function parseVTimezone(text: string): VTimezoneRules | null {
  const lines = text.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  const observances: Observance[] = [];
  let draft: Draft | null = null;
  for (const line of lines) {
    if (line === 'BEGIN:STANDARD' || line === 'BEGIN:DAYLIGHT') {
      if (draft) return null;
      draft = {};
      continue;
    }
    if (line === 'END:STANDARD' || line === 'END:DAYLIGHT') {
      const observance = draft && toObservance(draft);
      if (!observance) return null;
      observances.push(observance);
      draft = null;
      continue;
    }
    if (!draft) continue;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1);
    if (name === 'TZOFFSETFROM') draft.offsetFrom = parseOffset(value);
    else if (name === 'TZOFFSETTO') draft.offsetTo = parseOffset(value);
    else if (name === 'DTSTART') draft.dtstart = DATE_TIME.exec(value);
    else if (name === 'RRULE') {
      draft.rule = parseRule(value);
      if (!draft.rule) draft.invalid = true;
    }
    // RDATE, EXDATE, parameters on DTSTART, ...: outside the subset, so the zone is not verifiable.
    else if (name !== 'TZNAME' && !name.startsWith('X-')) draft.invalid = true;
  }
  return draft || observances.length === 0 ? null : { observances };
}

function nthWeekdayOfMonth(year: number, rule: YearlyRule): number | null {
  const daysInMonth = new Date(Date.UTC(year, rule.month, 0)).getUTCDate();
  let day: number;
  if (rule.nth > 0) {
    const firstWeekday = new Date(Date.UTC(year, rule.month - 1, 1)).getUTCDay();
    day = 1 + ((rule.weekday - firstWeekday + 7) % 7) + (rule.nth - 1) * 7;
  } else {
    const lastWeekday = new Date(Date.UTC(year, rule.month - 1, daysInMonth)).getUTCDay();
    day = daysInMonth - ((lastWeekday - rule.weekday + 7) % 7) + (rule.nth + 1) * 7;
  }
  // RFC 5545: a year without, say, a fifth Sunday simply has no onset.
  return day >= 1 && day <= daysInMonth ? day : null;
}

/** Onsets (as instants) of an observance that can be the latest one at or before any instant in `year`. */
function onsets(observance: Observance, year: number): number[] {
  const { rule } = observance;
  if (!rule) return [observance.start - observance.offsetFrom];
  const result: number[] = [];
  for (let y = Math.max(year - 1, observance.startYear); y <= year + 1; y++) {
    const day = nthWeekdayOfMonth(y, rule);
    if (day === null) continue;
    const local = localSeconds(y, rule.month, day, observance.timeOfDay);
    if (local >= observance.start) result.push(local - observance.offsetFrom);
  }
  return result;
}

/** The UTC offset (seconds) the VTIMEZONE gives an instant, or null before its first onset. */
export function offsetAt(rules: VTimezoneRules, instant: number): number | null {
  const year = new Date(instant * 1000).getUTCFullYear();
  let latest = -Infinity;
  let offset: number | null = null;
  for (const observance of rules.observances) {
    for (const onset of onsets(observance, year)) {
      if (onset <= instant && onset > latest) {
        latest = onset;
        offset = observance.offsetTo;
      }
    }
  }
  return offset;
}

/**
 * Every instant a wall-clock time can denote under the VTIMEZONE, earliest first: one normally, two in the
 * repeated hour after a fall-back transition, none in a spring-forward gap.
 */
export function instantsAt(rules: VTimezoneRules, local: number): number[] {
  const offsets = new Set(rules.observances.flatMap((o) => [o.offsetFrom, o.offsetTo]));
  const instants = new Set<number>();
  for (const offset of offsets) {
    if (offsetAt(rules, local - offset) === offset) instants.add(local - offset);
  }
  return [...instants].sort((a, b) => a - b);
}

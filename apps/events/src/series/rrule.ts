// The RRULE subset series accept (docs/product.md "Series"): FREQ (DAILY, WEEKLY, MONTHLY),
// INTERVAL, BYDAY, BYMONTHDAY, COUNT and UNTIL, parsed with every problem reported in plain
// English, and normalised for storage. Expansion into occurrences is recurrence.ts's.
import { Temporal } from 'temporal-polyfill';

const MAX_RRULE_LENGTH = 500;

const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY'] as const;
type Frequency = (typeof FREQUENCIES)[number];
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
type Weekday = (typeof WEEKDAYS)[number];
/** Also the order normaliseRrule writes the parts in. */
const PART_NAMES = ['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'COUNT', 'UNTIL'] as const;
type PartName = (typeof PART_NAMES)[number];

interface ByDayToken {
  /** 0 = every such weekday of the period; otherwise the n-th (negative: from the end) of the month. */
  ordinal: number;
  weekday: Weekday;
}

export type Until =
  | { kind: 'date'; date: Temporal.PlainDate; text: string }
  | { kind: 'instant'; instant: Temporal.Instant; text: string };

/** A rule of the subset, as parsed. */
export interface ParsedRule {
  freq: Frequency;
  interval: number;
  byDay: ByDayToken[];
  byMonthDay: number[];
  count: number | undefined;
  until: Until | undefined;
}

const BYDAY_TOKEN = /^([+-]?)(\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;
const UNTIL_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const UNTIL_DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

function parseInteger(name: string, value: string, min: number, max: number, problems: string[]): number {
  if (!/^\d+$/.test(value)) {
    problems.push(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
    return Number.NaN;
  }
  const n = Number(value);
  if (n < min || n > max) problems.push(`${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

function parseByDay(value: string, problems: string[]): ByDayToken[] {
  const tokens: ByDayToken[] = [];
  for (const raw of value.split(',')) {
    const match = BYDAY_TOKEN.exec(raw);
    if (!match) {
      problems.push(
        `BYDAY value "${raw}" is not a weekday (MO, TU, WE, TH, FR, SA, SU, optionally like 1MO or -1FR)`,
      );
      continue;
    }
    const [, sign, digits, weekday] = match;
    if (sign && !digits) {
      problems.push(`BYDAY value "${raw}" has a sign but no number`);
      continue;
    }
    const ordinal = digits === undefined ? 0 : (sign === '-' ? -1 : 1) * Number(digits);
    if (digits !== undefined && (ordinal === 0 || Math.abs(ordinal) > 5)) {
      problems.push(`BYDAY value "${raw}" must use an ordinal from -5 to 5, not 0`);
      continue;
    }
    tokens.push({ ordinal, weekday: weekday as Weekday });
  }
  return tokens;
}

function parseByMonthDay(value: string, problems: string[]): number[] {
  const days: number[] = [];
  for (const raw of value.split(',')) {
    const day = /^[+-]?\d{1,2}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(day) || day === 0 || Math.abs(day) > 31) {
      problems.push(`BYMONTHDAY value "${raw}" must be from 1 to 31 or from -31 to -1`);
      continue;
    }
    days.push(day);
  }
  return days;
}

function parseUntil(value: string, problems: string[]): Until | undefined {
  const dateTime = UNTIL_DATE_TIME.exec(value);
  const date = dateTime ?? UNTIL_DATE.exec(value);
  if (!date) {
    if (/^\d{8}T\d{6}$/.test(value)) {
      problems.push(
        `UNTIL ${value} has a time but no Z: a time in UNTIL must be in UTC, like 20261231T235959Z`,
      );
    } else {
      problems.push(
        `UNTIL must be a date like 20261231 or a UTC date-time like 20261231T235959Z, got "${value}"`,
      );
    }
    return undefined;
  }
  const [year, month, day, hour, minute, second] = date.slice(1).map(Number);
  try {
    const plain = Temporal.PlainDate.from({ year: year!, month: month!, day: day! }, { overflow: 'reject' });
    if (!dateTime) return { kind: 'date', date: plain, text: value };
    const time = Temporal.PlainTime.from(
      { hour: hour!, minute: minute!, second: second! },
      { overflow: 'reject' },
    );
    return {
      kind: 'instant',
      instant: plain.toZonedDateTime({ timeZone: 'UTC', plainTime: time }).toInstant(),
      text: value,
    };
  } catch {
    problems.push(`UNTIL ${value} is not a real calendar date or time`);
    return undefined;
  }
}

/** Parses the RRULE subset; collects every problem instead of stopping at the first. */
export function parseRrule(input: string): { rule: ParsedRule | undefined; problems: string[] } {
  const problems: string[] = [];
  if (input.length > MAX_RRULE_LENGTH) {
    return { rule: undefined, problems: [`rrule must be at most ${MAX_RRULE_LENGTH} characters`] };
  }
  const body = input.toUpperCase().replace(/^RRULE:/, '');
  if (body.length === 0)
    return { rule: undefined, problems: ['rrule must not be empty; it needs at least FREQ'] };
  if (/\s/.test(body)) return { rule: undefined, problems: ['rrule must not contain spaces or line breaks'] };

  const values = new Map<PartName, string>();
  for (const part of body.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) {
      problems.push(`rrule part "${part}" is not NAME=VALUE (parts are separated by ";")`);
      continue;
    }
    const name = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (!(PART_NAMES as readonly string[]).includes(name)) {
      problems.push(
        name === 'DTSTART'
          ? 'rrule part DTSTART is not allowed: the start is given by startsAt and timezone'
          : `rrule part ${name} is not supported (allowed: ${PART_NAMES.join(', ')})`,
      );
      continue;
    }
    if (values.has(name as PartName)) {
      problems.push(`rrule part ${name} appears more than once`);
      continue;
    }
    if (value.length === 0) {
      problems.push(`rrule part ${name} has no value`);
      continue;
    }
    values.set(name as PartName, value);
  }

  const freqText = values.get('FREQ');
  let freq: Frequency | undefined;
  if (freqText === undefined) {
    // A malformed FREQ part has been reported already; "FREQ is missing" on top would only confuse.
    if (!body.split(';').some((part) => part.startsWith('FREQ')))
      problems.push('rrule must have a FREQ part');
  } else if ((FREQUENCIES as readonly string[]).includes(freqText)) {
    freq = freqText as Frequency;
  } else {
    problems.push(`FREQ must be one of ${FREQUENCIES.join(', ')}, got ${freqText}`);
  }

  const intervalText = values.get('INTERVAL');
  const interval = intervalText === undefined ? 1 : parseInteger('INTERVAL', intervalText, 1, 99, problems);
  const countText = values.get('COUNT');
  const count = countText === undefined ? undefined : parseInteger('COUNT', countText, 1, 1000, problems);
  const untilText = values.get('UNTIL');
  const until = untilText === undefined ? undefined : parseUntil(untilText, problems);
  if (countText !== undefined && untilText !== undefined)
    problems.push('COUNT and UNTIL cannot both be given');

  const byDayText = values.get('BYDAY');
  const byDay = byDayText === undefined ? [] : parseByDay(byDayText, problems);
  if (freq !== undefined && freq !== 'MONTHLY' && byDay.some((t) => t.ordinal !== 0)) {
    problems.push(`BYDAY with a position like 1MO or -1FR is only allowed with FREQ=MONTHLY, not ${freq}`);
  }
  const byMonthDayText = values.get('BYMONTHDAY');
  const byMonthDay = byMonthDayText === undefined ? [] : parseByMonthDay(byMonthDayText, problems);
  if (freq !== undefined && freq !== 'MONTHLY' && byMonthDayText !== undefined) {
    problems.push(`BYMONTHDAY is only allowed with FREQ=MONTHLY, not ${freq}`);
  }

  if (problems.length > 0 || freq === undefined) return { rule: undefined, problems };
  return { rule: { freq, interval, byDay, byMonthDay, count, until }, problems };
}

/**
 * A normalised RRULE for storage: upper case, no `RRULE:` prefix, parts in the order FREQ, INTERVAL,
 * BYDAY, BYMONTHDAY, COUNT, UNTIL, list values sorted and de-duplicated, numbers without signs or
 * leading zeros, and INTERVAL=1 (the default) dropped, so equivalent rules store identically.
 * Throws a RangeError if the rule is not in the supported subset.
 */
export function normaliseRrule(rrule: string): string {
  const { rule, problems } = parseRrule(rrule);
  if (rule === undefined) throw new RangeError(`Invalid rrule: ${problems.join('; ')}`);
  const parts: string[] = [`FREQ=${rule.freq}`];
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.byDay.length > 0) {
    const tokens = [...rule.byDay]
      .sort(
        (a, b) =>
          WEEKDAYS.indexOf(a.weekday) - WEEKDAYS.indexOf(b.weekday) ||
          ordinalRank(a.ordinal) - ordinalRank(b.ordinal),
      )
      .map((t) => (t.ordinal === 0 ? t.weekday : `${t.ordinal}${t.weekday}`));
    parts.push(`BYDAY=${[...new Set(tokens)].join(',')}`);
  }
  if (rule.byMonthDay.length > 0) {
    const days = [...new Set(rule.byMonthDay)].sort((a, b) => ordinalRank(a) - ordinalRank(b));
    parts.push(`BYMONTHDAY=${days.join(',')}`);
  }
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== undefined) parts.push(`UNTIL=${rule.until.text}`);
  return parts.join(';');
}

/** Sort key: none (0) first, then 1, 2, ... and then -N ... -1, i.e. in month order. */
function ordinalRank(n: number): number {
  return n >= 0 ? n : 100 + n;
}

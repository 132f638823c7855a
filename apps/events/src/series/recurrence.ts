// Recurrence rules for event series: validation of the request shape, RRULE normalisation for
// storage, and expansion into concrete occurrences (docs/product.md "Series").
//
// Expansion is delegated to rrule-temporal, which computes every occurrence as a ZonedDateTime in
// the series time zone, so occurrences keep their local wall-clock time across DST changes.
// Everything the library would accept beyond the product's RRULE subset is rejected here first, and
// the rule is handed to the library as parsed options (not as a string) so that its lenient parser
// never sees input we have not checked.
//
// Two behaviours callers should know. A generated occurrence whose local time falls into a DST gap
// (a daily 02:30 on the spring-forward night) is skipped and does not count towards COUNT, as RFC
// 5545 requires. A startsAt that does not match BYDAY/BYMONTHDAY is not itself an occurrence, so
// index 0 is the first matching date; RFC 5545 leaves that case undefined and calendar clients
// differ, so a calendar export should use occurrence 0 as its DTSTART, not startsAt.
import { INSTANT_RANGE } from '@townhall/contracts';
import { RRuleTemporal } from 'rrule-temporal';
import type { TemporalZonedDateTime } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';
import { z } from 'zod';

export interface RecurrenceInput {
  /** Local date-time without offset, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS`. */
  startsAt: string;
  /** IANA time zone the local times are in. */
  timezone: string;
  /** RRULE subset: FREQ (DAILY/WEEKLY/MONTHLY), INTERVAL, BYDAY, BYMONTHDAY, COUNT, UNTIL. */
  rrule: string;
}

export interface Occurrence {
  /** 0-based position in the full recurrence set; the same occurrence always has the same index. */
  index: number;
  /** The UTC instant. */
  startsAt: Date;
  /** `YYYY-MM-DDTHH:MM:SS` wall-clock time in the series time zone. */
  localStart: string;
}

export const HORIZON = { minUpcoming: 10, weeks: 12 } as const;

const DAY_MS = 86_400_000;
/**
 * No occurrence starts later than this: an event lasts at most 31 days and must end within the
 * instants the service stores (INSTANT_RANGE), so a series simply ends there.
 */
const LAST_START_MS = Date.parse(INSTANT_RANGE.max) - 31 * DAY_MS;
const MAX_TIMEZONE_LENGTH = 100;
const MAX_RRULE_LENGTH = 500;
/** rrule-temporal's default is 10,000 periods; see analyse() for why expansion needs more. */
const EXPANSION_MAX_ITERATIONS = 1_000_000;

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

type Until =
  | { kind: 'date'; date: Temporal.PlainDate; text: string }
  | { kind: 'instant'; instant: Temporal.Instant; text: string };

interface ParsedRule {
  freq: Frequency;
  interval: number;
  byDay: ByDayToken[];
  byMonthDay: number[];
  count: number | undefined;
  until: Until | undefined;
}

type Field = 'startsAt' | 'timezone' | 'rrule';

interface Problem {
  field: Field;
  message: string;
}

interface Compiled {
  rule: RRuleTemporal;
  /** Undefined when the rule produces no occurrence at all. */
  first: TemporalZonedDateTime | undefined;
}

// ---------------------------------------------------------------------------------------------
// Field parsers. Each returns the parsed value or a plain-English message.

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$/;

function parseStartsAt(value: string): Temporal.PlainDateTime | string {
  if (WITH_OFFSET.test(value)) {
    return 'startsAt must be a local date-time without Z or an offset; the timezone field says where it is';
  }
  const match = LOCAL_DATE_TIME.exec(value);
  if (!match) return 'startsAt must be a local date-time like 2026-10-22T19:00 or 2026-10-22T19:00:00';
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  try {
    // 'reject' rather than the default 'constrain': 2025-02-30 must fail, not become 02-28.
    return Temporal.PlainDateTime.from(
      { year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second! },
      { overflow: 'reject' },
    );
  } catch {
    return `startsAt ${value} is not a real calendar date and time`;
  }
}

function checkTimezone(value: string): string | undefined {
  if (value.length === 0) return 'timezone must not be empty';
  if (value.length > MAX_TIMEZONE_LENGTH) return `timezone must be at most ${MAX_TIMEZONE_LENGTH} characters`;
  // Newer runtimes accept fixed offsets as zones; a fixed offset has no DST rules, which is exactly
  // what a series time zone is for, and it is not an IANA name.
  if (/^[+\-\u2212]/.test(value))
    return 'timezone must be an IANA time zone name such as Europe/Berlin, not an offset';
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: value });
    // The polyfill resolves zones on its own; make sure it agrees before expansion relies on it.
    Temporal.Now.instant().toZonedDateTimeISO(value);
    return undefined;
  } catch {
    return `timezone ${value} is not a known IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`;
  }
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
function parseRrule(input: string): { rule: ParsedRule | undefined; problems: string[] } {
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

// ---------------------------------------------------------------------------------------------
// Compilation into an rrule-temporal rule.

function untilInZone(until: Until, timezone: string): Temporal.ZonedDateTime {
  if (until.kind === 'instant') return until.instant.toZonedDateTimeISO(timezone);
  // A date UNTIL covers that whole local day. The next day's start (not 23:59:59) is computed in
  // the zone so that a day that is not 24 h long because of DST still ends in the right place.
  return until.date.add({ days: 1 }).toZonedDateTime({ timeZone: timezone }).subtract({ nanoseconds: 1 });
}

function buildRule(
  rule: ParsedRule,
  dtstart: Temporal.ZonedDateTime,
  timezone: string,
  maxIterations?: number,
): RRuleTemporal {
  return new RRuleTemporal({
    ...(maxIterations !== undefined && { maxIterations }),
    freq: rule.freq,
    interval: rule.interval,
    ...(rule.count !== undefined && { count: rule.count }),
    ...(rule.until !== undefined && { until: untilInZone(rule.until, timezone) }),
    ...(rule.byDay.length > 0 && {
      byDay: rule.byDay.map((t) => (t.ordinal === 0 ? t.weekday : `${t.ordinal}${t.weekday}`)),
    }),
    ...(rule.byMonthDay.length > 0 && { byMonthDay: rule.byMonthDay }),
    tzid: timezone,
    dtstart,
  });
}

function isIterationCap(error: unknown): boolean {
  // The library gives up with these after 10,000 periods / 1,000,000 candidates. A MONTHLY rule's
  // calendar repeats every 400 years (4,800 months), so a rule that finds nothing within the cap
  // never will (e.g. INTERVAL=12;BYMONTHDAY=31 starting in April).
  return error instanceof Error && /^Maximum (iterations|candidate evaluations)/.test(error.message);
}

function firstOf(rule: RRuleTemporal): TemporalZonedDateTime | undefined {
  try {
    return rule.all((_, i) => i < 1)[0];
  } catch (error) {
    if (isIterationCap(error)) return undefined;
    throw error;
  }
}

/** Checks all three fields together (UNTIL and emptiness depend on startsAt and timezone). */
function analyse(input: RecurrenceInput): { problems: Problem[]; compiled: Compiled | undefined } {
  const problems: Problem[] = [];
  const start = parseStartsAt(input.startsAt);
  if (typeof start === 'string') problems.push({ field: 'startsAt', message: start });
  const zoneProblem = checkTimezone(input.timezone);
  if (zoneProblem !== undefined) problems.push({ field: 'timezone', message: zoneProblem });
  const { rule, problems: ruleProblems } = parseRrule(input.rrule);
  for (const message of ruleProblems) problems.push({ field: 'rrule', message });
  if (typeof start === 'string' || zoneProblem !== undefined || rule === undefined) {
    return { problems, compiled: undefined };
  }

  // A local time inside a DST gap (e.g. 02:30 on the night clocks jump from 02:00 to 03:00) does
  // not exist. Temporal's 'compatible' disambiguation moves it forward by the gap's length (02:30
  // becomes 03:30), the same as RFC 5545 prescribes for an explicit DTSTART. Every later occurrence
  // takes its time of day from this resolved DTSTART, so such a series runs at 03:30 throughout.
  // The other edge, a repeated hour when clocks fall back, resolves to the earlier (first) 01:30.
  const dtstart = start.toZonedDateTime(input.timezone, { disambiguation: 'compatible' });
  if (dtstart.epochMilliseconds > LAST_START_MS) {
    const last = new Date(LAST_START_MS).toISOString();
    return {
      problems: [{ field: 'startsAt', message: `startsAt must be before ${last} in UTC` }],
      compiled: undefined,
    };
  }

  const until = rule.until;
  if (until !== undefined) {
    const before =
      until.kind === 'date'
        ? Temporal.PlainDate.compare(until.date, dtstart.toPlainDate()) < 0
        : Temporal.Instant.compare(until.instant, dtstart.toInstant()) < 0;
    if (before) problems.push({ field: 'rrule', message: `UNTIL ${until.text} is before startsAt` });
  }
  if (problems.length > 0) return { problems, compiled: undefined };

  let compiled: Compiled;
  try {
    // Two instances: the probe keeps the library's default cap, which bounds the search for a
    // first occurrence of a rule that never matches; the expansion instance gets a larger cap so
    // that a long-running series (a daily one passes 10,000 periods after 27 years) can still be
    // counted from its start. Every expansion below is bounded by now, the horizon, COUNT or UNTIL.
    const probe = buildRule(rule, dtstart, input.timezone);
    compiled = {
      rule: buildRule(rule, dtstart, input.timezone, EXPANSION_MAX_ITERATIONS),
      first: firstOf(probe),
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      problems: [{ field: 'rrule', message: `rrule could not be expanded: ${detail}` }],
      compiled: undefined,
    };
  }
  if (compiled.first === undefined) {
    problems.push({
      field: 'rrule',
      message:
        until === undefined
          ? 'rrule never produces an occurrence: no date from startsAt on matches it'
          : 'rrule produces no occurrence: no date between startsAt and UNTIL matches it',
    });
    return { problems, compiled: undefined };
  }
  return { problems, compiled };
}

function compile(recurrence: RecurrenceInput): Compiled {
  const { problems, compiled } = analyse(recurrence);
  if (compiled === undefined) {
    throw new RangeError(`Invalid recurrence: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  }
  return compiled;
}

function toOccurrence(zdt: TemporalZonedDateTime, index: number): Occurrence {
  return {
    index,
    startsAt: new Date(zdt.epochMilliseconds),
    localStart: zdt.toPlainDateTime().toString({ smallestUnit: 'second' }),
  };
}

// ---------------------------------------------------------------------------------------------
// Public API.

/** The request shape (docs/product.md "API shapes": recurrence {startsAt (local date-time without offset), timezone, rrule}). */
export const RecurrenceSchema = z
  .strictObject({ startsAt: z.string(), timezone: z.string(), rrule: z.string() })
  .superRefine((value, ctx) => {
    for (const problem of analyse(value).problems) {
      ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
    }
  });

/**
 * Every occurrence whose start is >= now and that falls within the horizon, in order.
 *
 * The horizon is max(now, first occurrence) + 12 weeks of absolute time, widened if needed so that
 * at least the next 10 occurrences are included. Indices count from the first occurrence of the
 * whole series, so they do not shift as time passes.
 */
export function plannedOccurrences(recurrence: RecurrenceInput, now: Date): Occurrence[] {
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError('plannedOccurrences: now is not a valid date');
  const { rule, first } = compile(recurrence);
  if (first === undefined) return [];

  const firstMs = first.epochMilliseconds;
  const from = Math.max(nowMs, firstMs);
  const horizonEnd = from + HORIZON.weeks * 7 * DAY_MS;

  // between() and next() jump straight to the window on rules without COUNT, where all() with a
  // callback would replay every past occurrence through the slower general engine. Counting the
  // past ones is still linear in their number, but only cheap integer work.
  const pastCount =
    firstMs < nowMs
      ? rule.between(new Date(firstMs), now, true).filter((z) => z.epochMilliseconds < nowMs).length
      : 0;
  const upcoming = rule.between(new Date(from), new Date(horizonEnd), true);
  let cursor = upcoming.at(-1);
  while (upcoming.length < HORIZON.minUpcoming) {
    const next: TemporalZonedDateTime | null = rule.next(
      cursor === undefined ? new Date(horizonEnd) : new Date(cursor.epochMilliseconds),
      false,
    );
    if (next === null) break;
    upcoming.push(next);
    cursor = next;
  }
  return upcoming
    .filter((zdt) => zdt.epochMilliseconds <= LAST_START_MS)
    .map((zdt, i) => toOccurrence(zdt, pastCount + i));
}

/**
 * When plannedOccurrences will next plan an occurrence after `planned` (what it planned at `now`),
 * so that the periodic extension looks at a series only then: the earlier of the next occurrence
 * coming within the horizon and the tenth-last planned one starting (after which fewer than
 * HORIZON.minUpcoming are upcoming). Null when the rule has no occurrence after the last planned
 * one (COUNT or UNTIL reached): such a series never needs extending again. Never before `now` plus
 * a minute, so one extension pass cannot pick the same series twice.
 */
export function extensionDue(recurrence: RecurrenceInput, planned: Occurrence[], now: Date): Date | null {
  const last = planned.at(-1);
  if (last === undefined) return null;
  const { rule } = compile(recurrence);
  const next: TemporalZonedDateTime | null = rule.next(new Date(last.startsAt.getTime()), false);
  if (next === null || next.epochMilliseconds > LAST_START_MS) return null;
  let due = next.epochMilliseconds - HORIZON.weeks * 7 * DAY_MS;
  const tenthLast = planned.at(-HORIZON.minUpcoming);
  if (tenthLast !== undefined) due = Math.min(due, tenthLast.startsAt.getTime());
  return new Date(Math.max(due, now.getTime() + 60_000));
}

/** The first `limit` occurrences from the start (for previews, tests). */
export function firstOccurrences(recurrence: RecurrenceInput, limit: number): Occurrence[] {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`firstOccurrences: limit must be a non-negative integer, got ${limit}`);
  }
  if (limit === 0) return [];
  const { rule } = compile(recurrence);
  return rule.all((_, i) => i < limit).map((zdt, i) => toOccurrence(zdt, i));
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

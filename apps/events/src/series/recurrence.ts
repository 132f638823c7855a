// Recurrence rules for event series: validation of the request shape and expansion into concrete
// occurrences (docs/product.md "Series"); the RRULE subset itself is parsed by rrule.ts.
//
// Expansion is delegated to rrule-temporal, which computes every occurrence as a ZonedDateTime in
// the series time zone, so occurrences keep their local wall-clock time across DST changes.
// Everything the library would accept beyond the product's RRULE subset is rejected first
// (rrule.ts), and the rule is handed to the library as parsed options (not as a string) so that its
// lenient parser never sees input we have not checked.
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
import { parseRrule, type ParsedRule, type Until } from './rrule.js';

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
/** rrule-temporal's default is 10,000 periods; see analyse() for why expansion needs more. */
const EXPANSION_MAX_ITERATIONS = 1_000_000;

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

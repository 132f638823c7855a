import { z } from 'zod';

/** An IANA time zone name the runtime knows (e.g. Europe/Berlin, America/New_York, UTC). */
export function isTimeZone(value: string): boolean {
  if (value.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const TimeZoneSchema = z
  .string()
  .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin');

/**
 * The instants the service accepts, after conversion to UTC: years 0001 to 9999. Postgres and
 * RFC 3339 agree on them; `9999-12-31T23:59:59-14:00` (year 10000 in UTC) or year 0000 are
 * refused here rather than by the database.
 */
export const INSTANT_RANGE = { min: '0001-01-01T00:00:00.000Z', max: '9999-12-31T23:59:59.999Z' } as const;
const MIN_MS = Date.parse(INSTANT_RANGE.min);
const MAX_MS = Date.parse(INSTANT_RANGE.max);

/** True for an epoch-milliseconds value within INSTANT_RANGE. */
export function isInstantInRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_MS && ms <= MAX_MS;
}

/** An RFC 3339 instant with an offset, within INSTANT_RANGE once in UTC; normalised to UTC (`...Z`). */
export const InstantSchema = z.iso
  .datetime({
    offset: true,
    message: 'must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T18:00:00Z',
  })
  .transform((value, context) => {
    const ms = Date.parse(value);
    if (!isInstantInRange(ms)) {
      context.addIssue({
        code: 'custom',
        message: `must be between ${INSTANT_RANGE.min} and ${INSTANT_RANGE.max} in UTC`,
      });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });

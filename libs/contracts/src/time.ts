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

/** An RFC 3339 instant with an offset; normalised to UTC (`...Z`). */
export const InstantSchema = z.iso
  .datetime({
    offset: true,
    message: 'must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T18:00:00Z',
  })
  .transform((value) => new Date(value).toISOString());

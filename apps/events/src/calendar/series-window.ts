import { createHash } from 'node:crypto';
import { Temporal } from 'temporal-polyfill';

/**
 * What a series' calendar file holds (docs/product.md "Series"): the occurrences that start from
 * 3 months back to 12 months ahead, in calendar months of UTC. A subscribed calendar shows what is
 * coming and what just was; a series years old does not make every poll render all its past.
 */
export const SERIES_CALENDAR_WINDOW = { monthsBack: 3, monthsAhead: 12 } as const;

/** [from, to): an occurrence is in the file when from <= its start < to. */
export function seriesCalendarWindow(now: Date): { from: Date; to: Date } {
  const at = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO('UTC');
  return {
    from: new Date(at.subtract({ months: SERIES_CALENDAR_WINDOW.monthsBack }).epochMilliseconds),
    to: new Date(at.add({ months: SERIES_CALENDAR_WINDOW.monthsAhead }).epochMilliseconds),
  };
}

/**
 * The file's strong entity tag, from what it is rendered from and not from its bytes: the series'
 * last change and each occurrence in the window with its version (every change of an occurrence
 * bumps it), so a conditional read is answered from one query without rendering.
 */
export function seriesCalendarTag(seriesUpdatedAt: Date, occurrences: string, baseUrl: string): string {
  const digest = createHash('sha256')
    .update(`${seriesUpdatedAt.toISOString()}\n${occurrences}\n${baseUrl}`)
    .digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

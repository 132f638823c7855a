import type { EventRow } from '../events/event-row.js';
import type { CalendarEvent } from './ics.js';

/** An event as a calendar file's entry: its page on the public origin is the entry's URL. */
export function calendarEntry(row: EventRow, baseUrl: string): CalendarEvent {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    timezone: row.timezone,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    sequence: row.version,
    url: `${baseUrl}/events/${row.id}`,
    hostId: row.host_id,
    seriesId: row.series_id,
  };
}

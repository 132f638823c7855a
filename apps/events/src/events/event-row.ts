import type {
  AccessMode,
  AgendaItem,
  EventFields,
  EventStatus,
  EventView,
  Moderation,
  Ticketing,
} from '@townhall/contracts';

/** A row of events.events (see the migrations). */
export interface EventRow {
  id: string;
  title: string;
  description: string;
  agenda: AgendaItem[];
  starts_at: Date;
  ends_at: Date;
  timezone: string;
  host_id: string;
  moderators: string[];
  speakers: string[];
  capacity: number;
  ticketing: Ticketing;
  moderation: Moderation;
  offer_minutes: number;
  access: AccessMode;
  status: EventStatus;
  series_id: string | null;
  tickets_sold: Record<string, number>;
  question_count: number;
  poll_count: number;
  version: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  cancelled_at: Date | null;
  recording_published_at: Date | null;
}

export const EVENT_COLUMNS = `id, title, description, agenda, starts_at, ends_at, timezone, host_id, moderators, speakers,
  capacity, ticketing, moderation, offer_minutes, access, status, series_id, tickets_sold, question_count, poll_count, version, created_at, updated_at,
  started_at, ended_at, cancelled_at, recording_published_at`;

/**
 * The columns a host edits (creating an event sets them, a PATCH sets them again), in the order of
 * editableValues().
 */
export const EDITABLE_COLUMNS =
  'title, description, agenda, starts_at, ends_at, timezone, moderators, speakers, capacity, ticketing, moderation, offer_minutes, access';

/** An event's fields as the values of EDITABLE_COLUMNS, JSON columns serialised. */
export function editableValues(fields: EventFields): unknown[] {
  return [
    fields.title,
    fields.description,
    JSON.stringify(fields.agenda),
    fields.startsAt,
    fields.endsAt,
    fields.timezone,
    fields.moderators,
    fields.speakers,
    fields.capacity,
    JSON.stringify(fields.ticketing),
    JSON.stringify(fields.moderation),
    fields.offerMinutes,
    fields.access,
  ];
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toEventView(row: EventRow): EventView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    agenda: row.agenda,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    timezone: row.timezone,
    hostId: row.host_id,
    moderators: row.moderators,
    speakers: row.speakers,
    capacity: row.capacity,
    ticketing: row.ticketing,
    moderation: row.moderation,
    offerMinutes: row.offer_minutes,
    access: row.access,
    status: row.status,
    seriesId: row.series_id,
    counts: { ticketsSold: row.tickets_sold, questions: row.question_count, polls: row.poll_count },
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at),
    cancelledAt: iso(row.cancelled_at),
    recordingPublishedAt: iso(row.recording_published_at),
  };
}

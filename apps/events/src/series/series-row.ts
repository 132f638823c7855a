import type { AccessMode, SeriesTemplate, SeriesView, SeriesOccurrence } from '@townhall/contracts';

/** A row of events.series. */
export interface SeriesRow {
  id: string;
  title: string;
  description: string;
  host_id: string;
  recurrence: { startsAt: string; timezone: string; rrule: string };
  /** As stored: a template written before access existed has none (it is `open`). */
  template: Omit<SeriesTemplate, 'access'> & { access?: AccessMode };
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const SERIES_COLUMNS =
  'id, title, description, host_id, recurrence, template, ended_at, created_at, updated_at';

export function toSeriesView(
  row: SeriesRow,
  followerCount: number,
  upcoming: SeriesOccurrence[],
): SeriesView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    hostId: row.host_id,
    recurrence: row.recurrence,
    template: { ...row.template, access: row.template.access ?? 'open' },
    followerCount,
    upcoming,
    endedAt: row.ended_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

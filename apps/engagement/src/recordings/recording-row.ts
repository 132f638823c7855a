import type { RecordingView } from '@townhall/contracts';

/** What is frozen when the event ends; attendance is added when read (see RecordingsService.attendance). */
export type StoredTranscript = Omit<RecordingView['transcript'], 'attendance'>;
export type Attendance = RecordingView['transcript']['attendance'];

/** A row of engagement.recordings (see the migrations). */
export interface RecordingRow {
  event_id: string;
  host_id: string;
  ended_at: Date;
  transcript: StoredTranscript;
  published: boolean;
  published_at: Date | null;
  media_url: string | null;
  summary: string | null;
}

export const RECORDING_COLUMNS =
  'event_id, host_id, ended_at, transcript, published, published_at, media_url, summary';

export function toRecording(row: RecordingRow, attendance: Attendance): RecordingView {
  return {
    eventId: row.event_id,
    published: row.published,
    publishedAt: row.published_at ? row.published_at.toISOString() : null,
    mediaUrl: row.media_url,
    summary: row.summary,
    transcript: { ...row.transcript, attendance },
  };
}

// What a calendar export answers (RFC 5545 files of an event, and of a series' occurrences).

export interface CalendarFile {
  filename: string;
  body: string;
}

/**
 * A series' calendar file, or only its entity tag when the caller's `ifNoneMatch` names it: the
 * tag comes from one query of the occurrences' versions, so a conditional read renders nothing.
 */
export interface SeriesCalendarFile {
  filename: string;
  etag: string;
  /** Null when `ifNoneMatch` named `etag` (the caller's copy is current). */
  body: string | null;
}

import { isPublicQuestionState, type RecordingView } from '@townhall/contracts';

/** What is frozen when the event ends; attendance is added when read (RecordingBook.view). */
export type StoredTranscript = Omit<RecordingView['transcript'], 'attendance'>;
export type Attendance = RecordingView['transcript']['attendance'];

/** The transcript's lists a page holds part of, as stored (each in the order it happened). */
export const TRANSCRIPT_LISTS = ['stage', 'questions', 'polls'] as const;
export type TranscriptList = (typeof TRANSCRIPT_LISTS)[number];

/**
 * A row of engagement.recordings (see the migrations) as a page reads it: `transcript` holds the
 * agenda and one page of each list (RecordingBook.find slices them in the query), and
 * `totals` each list's whole length.
 */
export interface RecordingRow {
  event_id: string;
  host_id: string;
  ended_at: Date;
  transcript: StoredTranscript;
  totals: Record<TranscriptList, number>;
  published: boolean;
  published_at: Date | null;
  media_url: string | null;
  summary: string | null;
}

/** The columns of a recording but its transcript, which a page reads in slices. */
export const RECORDING_COLUMNS = 'event_id, host_id, ended_at, published, published_at, media_url, summary';

/** What moderation has taken out of public view since (or before) the transcript froze. */
export interface Redactions {
  /** Stage messages a moderator hid. */
  hiddenMessages: ReadonlySet<string>;
  /** Agents blocked in the event: their open questions are left out. */
  blockedAgents: ReadonlySet<string>;
}

/**
 * The recording as it may be read: the frozen transcript with moderation applied when read, so a
 * message hidden after the end loses its body here too, and questions the public never saw
 * (pending, withdrawn, the open ones of a blocked agent) are left out.
 */
export function toRecording(
  row: RecordingRow,
  attendance: Attendance,
  redactions: Redactions,
  nextCursor: string | null,
): RecordingView {
  const { stage, questions } = row.transcript;
  return {
    eventId: row.event_id,
    published: row.published,
    publishedAt: row.published_at ? row.published_at.toISOString() : null,
    mediaUrl: row.media_url,
    summary: row.summary,
    transcript: {
      ...row.transcript,
      stage: stage.map((message) =>
        redactions.hiddenMessages.has(message.id)
          ? { ...message, body: null, hidden: true }
          : // A transcript frozen before messages could be hidden has no `hidden` field.
            { ...message, hidden: false },
      ),
      questions: questions.filter(
        (question) =>
          isPublicQuestionState(question.state) &&
          !(question.state === 'open' && redactions.blockedAgents.has(question.authorId)),
      ),
      attendance,
    },
    nextCursor,
  };
}

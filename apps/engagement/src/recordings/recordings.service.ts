import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type EventView,
  type MessageMeta,
  type RecordingView,
  type SignedMeta,
  isUuid,
} from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { Participants, requireRole } from '../access/participants.js';
import { closeStage } from '../db/functions.js';
import { ClosePolls } from '../polls/close-polls.js';
import { PollBook } from '../polls/poll-book.js';
import { QuestionBook } from '../questions/question-book.js';
import { StageBook } from '../stage/stage-book.js';
import {
  decodeRecordingCursor,
  encodeRecordingCursor,
  FIRST_PAGE,
  START,
  type RecordingPage,
  type RecordingPosition,
} from './recording-cursor.js';
import {
  RECORDING_COLUMNS,
  toRecording,
  type Attendance,
  type RecordingRow,
  type Redactions,
  type StoredTranscript,
  type TranscriptList,
} from './recording-row.js';

/**
 * Recordings (docs/product.md "Recordings"): assembled when the event ends, read by the host alone
 * until the host publishes it, public after.
 */
@Injectable()
export class RecordingsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly stage: StageBook,
    private readonly questions: QuestionBook,
    private readonly polls: PollBook,
    private readonly pollClosing: ClosePolls,
  ) {}

  /**
   * The end of the event, in one transaction: nothing more is accepted for it (closeStage waits
   * for the writes in flight), its open polls close, and the recording freezes what happened.
   */
  async assemble(manager: EntityManager, event: EventView): Promise<void> {
    const endedAt = event.endedAt ?? new Date().toISOString();
    await closeStage(manager, { eventId: event.id, endedAt });
    await this.pollClosing.closeAllOf(manager, event.id);
    const transcript: StoredTranscript = {
      agenda: event.agenda,
      stage: await this.stage.all(manager, event.id),
      questions: await this.questions.all(manager, event.id),
      polls: await this.polls.all(manager, event.id),
    };
    await manager.query(
      `INSERT INTO engagement.recordings (event_id, host_id, ended_at, transcript) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (event_id) DO NOTHING`,
      [event.id, event.hostId, endedAt, JSON.stringify(transcript)],
    );
  }

  /**
   * Published: anyone (meta.caller null on the public route). Before: the host only, signed
   * (the gateway's draft route); unsigned it does not exist yet (404 recording.not_found).
   */
  async get(eventId: string, meta: MessageMeta, page: RecordingPage = FIRST_PAGE): Promise<RecordingView> {
    const position = page.cursor === undefined ? START : decodeRecordingCursor(page.cursor);
    const row = await this.find(eventId, position, page.limit);
    if (!row) {
      await this.participants.event(eventId, meta); // 404 event.not_found for an unknown event
      throw new DomainError('recording.not_found', 'The event has not ended');
    }
    if (!row.published) {
      if (meta.caller === null)
        throw new DomainError('recording.not_found', 'The recording is not published');
      if (meta.caller !== row.host_id)
        throw new DomainError('role.forbidden', 'Only the host reads the recording before it is published');
    }
    return this.view(row, position, page.limit);
  }

  /** The host publishes, optionally with a media URL and a summary; publishing again updates them. */
  async publish(
    meta: SignedMeta,
    eventId: string,
    media: { mediaUrl?: string | undefined; summary?: string | undefined },
  ): Promise<RecordingView> {
    const current = await this.find(eventId, START, 0);
    if (!current) {
      await this.participants.authorize(eventId, meta, (participant) =>
        requireRole(participant, ['host'], 'publish the recording'),
      );
      throw new DomainError('recording.not_found', 'The event has not ended');
    }
    if (current.host_id !== meta.caller)
      throw new DomainError('role.forbidden', 'Only the host can publish the recording');
    return this.outbox.run(async (manager) => {
      await manager.query(
        `UPDATE engagement.recordings SET published = true, published_at = COALESCE(published_at, now()),
           media_url = COALESCE($2, media_url), summary = COALESCE($3, summary)
         WHERE event_id = $1`,
        [eventId, media.mediaUrl ?? null, media.summary ?? null],
      );
      // Its first page: what the answer and the domain event carry (the rest is read by page).
      const row = await this.find(eventId, START, FIRST_PAGE.limit, manager);
      const recording = await this.view(row!, START, FIRST_PAGE.limit, manager);
      await this.outbox.announce(manager, [
        { type: EngagementTopics.recordingPublished, subject: eventId, data: recording },
      ]);
      return recording;
    });
  }

  /**
   * The recording with `limit` of each transcript list from `position` on, sliced in the query
   * (the reply is bounded, however long the event went on), and each list's whole length.
   */
  private async find(
    eventId: string,
    position: RecordingPosition,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecordingRow | undefined> {
    if (!isUuid(eventId)) return undefined;
    const slice = (list: TranscriptList, from: string) =>
      `'${list}', (SELECT COALESCE(jsonb_agg(item ORDER BY n), '[]'::jsonb)
         FROM jsonb_array_elements(transcript->'${list}') WITH ORDINALITY AS t(item, n)
         WHERE n > ${from} AND n <= ${from} + $5)`;
    const [row] = await queryRows<RecordingRow>(
      manager,
      `SELECT ${RECORDING_COLUMNS},
         jsonb_build_object('agenda', transcript->'agenda', ${slice('stage', '$2')}, ${slice('questions', '$3')},
           ${slice('polls', '$4')}) AS transcript,
         jsonb_build_object('stage', jsonb_array_length(transcript->'stage'),
           'questions', jsonb_array_length(transcript->'questions'),
           'polls', jsonb_array_length(transcript->'polls')) AS totals
       FROM engagement.recordings WHERE event_id = $1`,
      [eventId, position.s, position.q, position.p, limit],
    );
    return row;
  }

  private async view(
    row: RecordingRow,
    position: RecordingPosition,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecordingView> {
    const attendance = await this.attendance(manager, row.event_id, row.ended_at, position.a, limit);
    const next: RecordingPosition = {
      s: Math.min(row.totals.stage, position.s + limit),
      q: Math.min(row.totals.questions, position.q + limit),
      p: Math.min(row.totals.polls, position.p + limit),
      a: attendance.attendees.at(-1) ?? position.a,
    };
    const more =
      attendance.more ||
      next.s < row.totals.stage ||
      next.q < row.totals.questions ||
      next.p < row.totals.polls;
    return toRecording(
      row,
      { ticketsIssued: attendance.ticketsIssued, attendees: attendance.attendees },
      await this.redactions(manager, row.event_id),
      more ? encodeRecordingCursor(next) : null,
    );
  }

  /** The event's hidden stage messages and blocked agents, as they are now. */
  private async redactions(manager: EntityManager, eventId: string): Promise<Redactions> {
    const [row] = await queryRows<{ hidden: string[]; blocked: string[] }>(
      manager,
      `SELECT ARRAY(SELECT id::text FROM engagement.stage_messages WHERE event_id = $1 AND hidden_at IS NOT NULL) AS hidden,
              ARRAY(SELECT agent_id FROM engagement.blocks WHERE event_id = $1) AS blocked`,
      [eventId],
    );
    return { hiddenMessages: new Set(row?.hidden ?? []), blockedAgents: new Set(row?.blocked ?? []) };
  }

  /**
   * Tickets issued before the end, and the agents still holding one at the end. Computed from
   * the ticket projection when read, not frozen at the end: the ticket consumer and the
   * lifecycle consumer run independently, so a ticket issued a moment before the end may be
   * projected after the recording was assembled; filtering by time gives the same answer
   * either way.
   */
  private async attendance(
    manager: EntityManager,
    eventId: string,
    endedAt: Date,
    after: string,
    limit: number,
  ): Promise<Attendance & { more: boolean }> {
    const [row] = await queryRows<{ tickets_issued: number; attendees: string[] }>(
      manager,
      `SELECT (SELECT count(*)::int FROM engagement.attendance WHERE event_id = $1 AND issued_at <= $2) AS tickets_issued,
              ARRAY(SELECT DISTINCT agent_id FROM engagement.attendance
                    WHERE event_id = $1 AND issued_at <= $2 AND (cancelled_at IS NULL OR cancelled_at > $2)
                      AND agent_id > $3
                    ORDER BY agent_id LIMIT $4) AS attendees`,
      [eventId, endedAt, after, limit + 1],
    );
    const attendees = row?.attendees ?? [];
    return {
      ticketsIssued: row?.tickets_issued ?? 0,
      attendees: attendees.slice(0, limit),
      more: attendees.length > limit,
    };
  }
}

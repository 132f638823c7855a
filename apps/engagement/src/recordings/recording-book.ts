import { Injectable } from '@nestjs/common';
import { isUuid, type RecordingView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { encodeRecordingCursor, type RecordingPosition } from './recording-cursor.js';
import {
  RECORDING_COLUMNS,
  toRecording,
  type Attendance,
  type RecordingRow,
  type Redactions,
  type TranscriptList,
} from './recording-row.js';

/** The reads of a recording that reading and publishing it share: a page of it, as it may be read. */
@Injectable()
export class RecordingBook {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The recording with `limit` of each transcript list from `position` on, sliced in the query
   * (the reply is bounded, however long the event went on), and each list's whole length.
   */
  async find(
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

  /** The page `find` read, with its attendance and moderation as they are now, and where the next starts. */
  async view(
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

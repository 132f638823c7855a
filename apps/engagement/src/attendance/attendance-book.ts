import { Inject, Injectable } from '@nestjs/common';
import { type Clock, CLOCK, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { attendeesOf, type Attendee, type LiveWindow } from './attendees.js';
import { SILENT_INTERVALS } from './record-presence.js';
import { viewersOverTime } from './viewers.js';

/** The report's attendance (EngagementReport's `attendance`, without handles). */
export interface AttendanceReport {
  present: number;
  peakConcurrent: number;
  viewersOverTime: Array<{ at: string; viewers: number }>;
  byAgent: Attendee[];
}

/**
 * Reading attendance for the report (docs/product.md "The report"): the sessions of the event's
 * ticket holders and its viewer samples, within the window it was live.
 */
@Injectable()
export class AttendanceBook {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  /**
   * The event's attendance within `window` (none: it never went live). Only ticket holders are
   * attendees: the agents engagement.attendance has a ticket of, cancelled since or not (a holder
   * whose ticket was cancelled still counts for the time they held it). A session still open ends
   * now, or at its last report when its gateway has been silent for SILENT_INTERVALS intervals.
   */
  async report(
    manager: EntityManager,
    eventId: string,
    window: LiveWindow | undefined,
  ): Promise<AttendanceReport> {
    if (!window) return { present: 0, peakConcurrent: 0, viewersOverTime: [], byAgent: [] };
    const now = this.clock().toISOString();
    const from = window.from.toISOString();
    const to = window.to.toISOString();
    const sessions = await queryRows<{ agent_id: string; started_at: Date; ended_at: Date }>(
      manager,
      `SELECT s.agent_id, s.started_at,
              GREATEST(s.started_at, COALESCE(s.ended_at,
                CASE WHEN s.last_seen_at + s.interval_ms * ${SILENT_INTERVALS} * interval '1 millisecond' < $2
                     THEN s.last_seen_at ELSE $2::timestamptz END)) AS ended_at
         FROM engagement.stream_sessions s
        WHERE s.event_id = $1 AND s.started_at <= $4 AND (s.ended_at IS NULL OR s.ended_at >= $3)
          AND EXISTS (SELECT FROM engagement.attendance a WHERE a.event_id = $1 AND a.agent_id = s.agent_id)
       UNION ALL
       -- A question is its asker's presence at its time: read from the question, not written twice.
       SELECT q.author_id, q.created_at, q.created_at FROM engagement.questions q
        WHERE q.event_id = $1 AND q.created_at BETWEEN $3 AND $4
          AND EXISTS (SELECT FROM engagement.attendance a WHERE a.event_id = $1 AND a.agent_id = q.author_id)`,
      [eventId, now, from, to],
    );
    const byAgent = attendeesOf(
      sessions.map((row) => ({ agentId: row.agent_id, startedAt: row.started_at, endedAt: row.ended_at })),
      window,
    );
    // Every gateway's sample of a bucket, summed; a bucket counts when any of it was live.
    const samples = await queryRows<{ sampled_at: Date; viewers: number }>(
      manager,
      `SELECT sampled_at, sum(viewers)::integer AS viewers FROM engagement.viewer_samples
        WHERE event_id = $1 AND sampled_at <= $3 AND sampled_at + interval_ms * interval '1 millisecond' > $2
        GROUP BY sampled_at ORDER BY sampled_at`,
      [eventId, from, to],
    );
    const viewers = viewersOverTime(samples.map((row) => ({ at: row.sampled_at, viewers: row.viewers })));
    return {
      present: byAgent.length,
      peakConcurrent: viewers.peak,
      viewersOverTime: viewers.overTime,
      byAgent,
    };
  }
}

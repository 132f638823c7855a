import { Injectable } from '@nestjs/common';
import type { EngagementAnswer, SignedMeta } from '@townhall/contracts';
import { DataSource } from 'typeorm';
import { Participants, requireRole } from '../access/participants.js';
import { AttendanceBook } from '../attendance/attendance-book.js';
import { agentsPart } from './agents-part.js';
import { LiveWindows } from './live-window.js';
import { pollsPart } from './polls-part.js';
import { questionsPart } from './questions-part.js';
import { stagePart } from './stage-part.js';

/**
 * Engagement's part of an event's report (Reports.engagement; docs/product.md "The report"), for
 * the host or a moderator (403 role.forbidden for anyone else), during the event or after it:
 * - attendance: the ticket holders present while the event was live, each with the minutes they
 *   were (a signed live stream of theirs open, overlapping streams counted once; a write, a stage
 *   post, a question, an upvote or a ballot, counts as present at that moment), first and last
 *   seen; concurrent viewers (every live stream open, signed or not) over time, and their peak;
 * - questions, polls and the stage as they are (every question, every poll with its real results);
 * - each agent's questions and ballots, for the CSV.
 * Handles are not engagement's: the gateway adds them. Read in one snapshot of the database.
 */
@Injectable()
export class EngagementReportOf {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
    private readonly windows: LiveWindows,
    private readonly attendance: AttendanceBook,
  ) {}

  async report(meta: SignedMeta, eventId: string): Promise<EngagementAnswer> {
    await this.participants.authorize(eventId, meta, (participant) =>
      requireRole(participant, ['host', 'moderator'], "read the event's report"),
    );
    const window = await this.windows.of(eventId, meta);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const attendance = await this.attendance.report(manager, eventId, window);
      const questions = await questionsPart(manager, eventId);
      const polls = await pollsPart(manager, eventId);
      const stage = await stagePart(manager, eventId);
      const agents = await agentsPart(manager, eventId);
      return { report: { attendance, questions, polls, stage }, agents };
    });
  }
}

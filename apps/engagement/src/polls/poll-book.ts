import { Injectable } from '@nestjs/common';
import { DomainError, type PollView, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { POLL_COLUMNS, POLL_OPTION_COLUMNS, toPoll, type PollOptionRow, type PollRow } from './poll-row.js';

/** Reading polls: one with its options, polls as everyone sees them, and the recording's. */
@Injectable()
export class PollBook {
  constructor(private readonly dataSource: DataSource) {}

  /** The poll and its options in order, as they are now; 404 poll.not_found. */
  async find(eventId: string, pollId: string): Promise<{ poll: PollRow; options: PollOptionRow[] }> {
    const manager = this.dataSource.manager;
    const [poll] = isUuid(pollId)
      ? await queryRows<PollRow>(
          manager,
          `SELECT ${POLL_COLUMNS} FROM engagement.polls WHERE id = $1 AND event_id = $2`,
          [pollId, eventId],
        )
      : [];
    if (!poll) throw new DomainError('poll.not_found', `No poll ${pollId} in this event`);
    const options = await queryRows<PollOptionRow>(
      manager,
      `SELECT ${POLL_OPTION_COLUMNS} FROM engagement.poll_options WHERE poll_id = $1 ORDER BY position`,
      [pollId],
    );
    return { poll, options };
  }

  /** The polls of `rows` with their options, in one more query. */
  async views(manager: EntityManager, rows: PollRow[]): Promise<PollView[]> {
    if (rows.length === 0) return [];
    const options = await queryRows<PollOptionRow>(
      manager,
      `SELECT ${POLL_OPTION_COLUMNS} FROM engagement.poll_options WHERE poll_id = ANY($1::uuid[])`,
      [rows.map((row) => row.id)],
    );
    return rows.map((row) => toPoll(row, options));
  }

  /** Every poll of the event with its results, for the recording. */
  async all(manager: EntityManager, eventId: string): Promise<PollView[]> {
    const rows = await queryRows<PollRow>(
      manager,
      `SELECT ${POLL_COLUMNS} FROM engagement.polls WHERE event_id = $1 ORDER BY seq`,
      [eventId],
    );
    return this.views(manager, rows);
  }
}

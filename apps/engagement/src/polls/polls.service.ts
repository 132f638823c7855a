import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type MessageMeta,
  type Page,
  type ParsedRequestOf,
  type PollView,
  type Polls,
  type SignedMeta,
  isUuid,
} from '@townhall/contracts';
import { OutboxWriter, Periodic, queryRows, type Announcement } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import type { EngagementConfig } from '../config.js';
import { Participants, requireAttendee, requireNotBlocked, requireRole } from '../access/participants.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { holdOpen } from '../db/functions.js';
import { POLL_COLUMNS, POLL_OPTION_COLUMNS, toPoll, type PollOptionRow, type PollRow } from './poll-row.js';

type PollOpening = ParsedRequestOf<typeof Polls.open>;

/** Polls (docs/product.md "Live stage, Q&A, polls"): opened while live, one ballot per agent. */
@Injectable()
export class PollsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: OutboxWriter,
    private readonly participants: Participants,
  ) {}

  /** Speakers, moderators and the host open polls while the event is live. */
  async open(meta: SignedMeta, opening: PollOpening): Promise<PollView> {
    const { eventId } = opening;
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator', 'speaker'], 'open polls');
      requireNotBlocked(participant);
      if (participant.status !== 'live')
        throw new DomainError('poll.not_live', `The event is ${participant.status}`);
    });
    if (opening.closesAt !== undefined && Date.parse(opening.closesAt) <= Date.now()) {
      throw new DomainError('validation.failed', 'closesAt must be in the future', [
        { field: 'closesAt', message: 'must be in the future' },
      ]);
    }
    return this.changes.run(async (manager) => {
      if (!(await holdOpen(manager, { eventId })))
        throw new DomainError('poll.not_live', 'The event has ended');
      const [row] = await queryRows<PollRow>(
        manager,
        `INSERT INTO engagement.polls (event_id, opener_id, question, multiple, results_visibility, closes_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${POLL_COLUMNS}`,
        [
          eventId,
          meta.caller,
          opening.question,
          opening.multiple,
          opening.resultsVisibility,
          opening.closesAt ?? null,
        ],
      );
      const options = await queryRows<PollOptionRow>(
        manager,
        `INSERT INTO engagement.poll_options (poll_id, id, position, label)
         SELECT $1, t.id, t.position, t.label FROM unnest($2::text[], $3::int[], $4::text[]) AS t(id, position, label)
         RETURNING ${POLL_OPTION_COLUMNS}`,
        [
          row!.id,
          opening.options.map(() => randomUUID()),
          opening.options.map((_, index) => index),
          opening.options,
        ],
      );
      const poll = toPoll(row!, options);
      await this.changes.announce(manager, [
        { type: EngagementTopics.pollOpened, subject: eventId, data: poll },
      ]);
      return poll;
    });
  }

  /**
   * One ballot per agent per poll, enforced by the ballots primary key (a second is 409
   * poll.already_voted). The poll row is updated first: that serialises ballots with a close,
   * so no ballot lands in a closed poll, and counts ballots; tallies move in the same transaction.
   */
  async vote(meta: SignedMeta, eventId: string, pollId: string, optionIds: string[]): Promise<PollView> {
    const { poll, options } = await this.participants.authorize(eventId, meta, async (participant) => {
      requireNotBlocked(participant);
      requireAttendee(participant, 'vote in polls');
      const found = await this.find(this.dataSource.manager, eventId, pollId);
      // Ending the event closes its polls; until the closing is processed here, the status says so.
      if (found.poll.status !== 'open' || participant.status !== 'live')
        throw new DomainError('poll.closed', 'The poll is closed');
      return found;
    });
    const chosen = checkBallot(poll, options, optionIds);
    return this.changes.run(async (manager) => {
      const [open] = await queryRows<PollRow>(
        manager,
        `UPDATE engagement.polls SET ballots = ballots + 1
         WHERE id = $1 AND status = 'open' AND (closes_at IS NULL OR closes_at > now()) RETURNING ${POLL_COLUMNS}`,
        [pollId],
      );
      if (!open) throw new DomainError('poll.closed', 'The poll is closed');
      const cast = await queryRows(
        manager,
        `INSERT INTO engagement.ballots (poll_id, agent_id, option_ids) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING agent_id`,
        [pollId, meta.caller, chosen],
      );
      if (cast.length === 0) throw new DomainError('poll.already_voted', 'You already voted in this poll');
      const tallies = await queryRows<PollOptionRow>(
        manager,
        `UPDATE engagement.poll_options SET votes = votes + 1 WHERE poll_id = $1 AND id = ANY($2::text[])
         RETURNING ${POLL_OPTION_COLUMNS}`,
        [pollId, chosen],
      );
      const updated = new Map(tallies.map((option) => [option.id, option]));
      const view = toPoll(
        open,
        options.map((option) => updated.get(option.id) ?? option),
      );
      await this.changes.announce(manager, [
        { type: EngagementTopics.pollVoted, subject: eventId, data: view },
      ]);
      return view;
    });
  }

  /** The opener, a moderator or the host closes an open poll. */
  async close(meta: SignedMeta, eventId: string, pollId: string): Promise<PollView> {
    await this.participants.authorize(eventId, meta, async (participant) => {
      const { poll } = await this.find(this.dataSource.manager, eventId, pollId);
      if (poll.opener_id !== meta.caller) requireRole(participant, ['host', 'moderator'], 'close this poll');
      requireNotBlocked(participant);
    });
    return this.changes.run(async (manager) => {
      const closed = await this.closeWhere(manager, 'id = $1', [pollId]);
      if (closed.length === 0) throw new DomainError('poll.closed', 'The poll is already closed');
      return closed[0]!;
    });
  }

  /**
   * Closes every open poll past its `closesAt` (at that time): a poll closes at most one interval
   * late. Idempotent, safe on every replica at once: a conditional UPDATE of open polls closes
   * (and announces) each poll once.
   */
  @Periodic<EngagementConfig>({ every: 'POLL_SWEEP_INTERVAL_MS' })
  async closeDue(): Promise<number> {
    const closed = await this.changes.run((manager) =>
      this.closeWhere(manager, 'closes_at <= now()', [], 'closes_at'),
    );
    return closed.length;
  }

  /** Closes the event's open polls when it ends (in the transaction that assembles the recording). */
  closeAllOf(manager: EntityManager, eventId: string): Promise<PollView[]> {
    return this.closeWhere(manager, 'event_id = $1', [eventId]);
  }

  /** Public: in the order they were opened. */
  async list(
    query: { eventId: string; limit: number; cursor?: string | undefined },
    meta: MessageMeta,
  ): Promise<Page<PollView>> {
    const after = query.cursor ? decodeCursor(query.cursor, ['s']).s : 0;
    const rows = isUuid(query.eventId)
      ? await queryRows<PollRow>(
          this.dataSource,
          `SELECT ${POLL_COLUMNS} FROM engagement.polls WHERE event_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [query.eventId, after, query.limit + 1],
        )
      : [];
    if (rows.length === 0 && (!query.cursor || !isUuid(query.eventId)))
      await this.participants.event(query.eventId, meta); // 404 event.not_found, or an empty list
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: await this.views(this.dataSource.manager, page),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ s: Number(last.seq) }) : null,
    };
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

  /** Closes the open polls matching `where` and announces each, with its results. */
  private async closeWhere(
    manager: EntityManager,
    where: string,
    params: unknown[],
    closedAt = 'now()',
  ): Promise<PollView[]> {
    const rows = await queryRows<PollRow>(
      manager,
      `UPDATE engagement.polls SET status = 'closed', closed_at = ${closedAt}
       WHERE status = 'open' AND ${where} RETURNING ${POLL_COLUMNS}`,
      params,
    );
    const polls = await this.views(manager, rows);
    const announcements: Announcement[] = polls.map((poll) => ({
      type: EngagementTopics.pollClosed,
      subject: poll.eventId,
      data: poll,
    }));
    await this.changes.announce(manager, announcements);
    return polls;
  }

  private async views(manager: EntityManager, rows: PollRow[]): Promise<PollView[]> {
    if (rows.length === 0) return [];
    const options = await queryRows<PollOptionRow>(
      manager,
      `SELECT ${POLL_OPTION_COLUMNS} FROM engagement.poll_options WHERE poll_id = ANY($1::uuid[])`,
      [rows.map((row) => row.id)],
    );
    return rows.map((row) => toPoll(row, options));
  }

  private async find(
    manager: EntityManager,
    eventId: string,
    pollId: string,
  ): Promise<{ poll: PollRow; options: PollOptionRow[] }> {
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
}

/** The chosen option ids, sorted: each must be an option of the poll, once; exactly one unless multiple choice. */
function checkBallot(poll: PollRow, options: PollOptionRow[], optionIds: string[]): string[] {
  const known = new Set(options.map((option) => option.id));
  const chosen = [...new Set(optionIds)].sort();
  const invalid = (message: string) =>
    new DomainError('validation.failed', message, [{ field: 'optionIds', message }]);
  const unknown = chosen.filter((id) => !known.has(id));
  if (unknown.length > 0) throw invalid(`not options of this poll: ${unknown.join(', ')}`);
  if (chosen.length !== optionIds.length) throw invalid('names an option more than once');
  if (!poll.multiple && chosen.length !== 1) throw invalid('this poll takes exactly one option');
  return chosen;
}

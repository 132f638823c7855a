import { Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type PollView, type SignedMeta } from '@townhall/contracts';
import { OutboxWriter, Periodic, queryRows, type Announcement } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import type { EngagementConfig } from '../config.js';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { PollBook } from './poll-book.js';
import { POLL_COLUMNS, type PollRow } from './poll-row.js';

/**
 * Polls close three ways, by one conditional UPDATE of open polls that announces each poll it
 * closes, with its results: by a person (`close`), at their `closesAt` (`closeDue`), and all
 * of an event when it ends (`closeAllOf`). A poll is closed and announced once, whichever wins.
 */
@Injectable()
export class ClosePolls {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: PollBook,
  ) {}

  /** The opener, a moderator or the host closes an open poll. */
  async close(meta: SignedMeta, eventId: string, pollId: string): Promise<PollView> {
    await this.participants.authorize(eventId, meta, async (participant) => {
      const { poll } = await this.book.find(eventId, pollId);
      if (poll.opener_id !== meta.caller) requireRole(participant, ['host', 'moderator'], 'close this poll');
      requireNotBlocked(participant);
    });
    return this.outbox.run(async (manager) => {
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
    const closed = await this.outbox.run((manager) =>
      this.closeWhere(manager, 'closes_at <= now()', [], 'closes_at'),
    );
    return closed.length;
  }

  /** Closes the event's open polls when it ends (in the transaction that assembles the recording). */
  closeAllOf(manager: EntityManager, eventId: string): Promise<PollView[]> {
    return this.closeWhere(manager, 'event_id = $1', [eventId]);
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
    const polls = await this.book.views(manager, rows);
    const announcements: Announcement[] = polls.map((poll) => ({
      type: EngagementTopics.pollClosed,
      subject: poll.eventId,
      data: poll,
    }));
    await this.outbox.announce(manager, announcements);
    return polls;
  }
}

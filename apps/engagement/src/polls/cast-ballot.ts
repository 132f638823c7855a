import { Inject, Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type PollView, type SignedMeta } from '@townhall/contracts';
import { type Clock, CLOCK, OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants, requireAttendee, requireNotBlocked } from '../access/participants.js';
import { recordWritePresence } from '../attendance/write-presence.js';
import { PollBook } from './poll-book.js';
import { POLL_COLUMNS, POLL_OPTION_COLUMNS, toPoll, type PollOptionRow, type PollRow } from './poll-row.js';

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

/**
 * An attendee votes in an open poll (Polls.vote): one ballot per agent per poll, enforced by the
 * ballots primary key (a second is 409 poll.already_voted). The poll row is updated first: that
 * serialises ballots with a close, so no ballot lands in a closed poll, and counts ballots;
 * tallies move in the same transaction, and so does the voter's presence at that moment
 * (docs/product.md "The report").
 */
@Injectable()
export class CastBallot {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: PollBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async cast(meta: SignedMeta, eventId: string, pollId: string, optionIds: string[]): Promise<PollView> {
    const { poll, options } = await this.participants.authorize(eventId, meta, async (participant) => {
      requireNotBlocked(participant);
      requireAttendee(participant, 'vote in polls');
      const found = await this.book.find(eventId, pollId);
      // Ending the event closes its polls; until the closing is processed here, the status says so.
      if (found.poll.status !== 'open' || participant.status !== 'live')
        throw new DomainError('poll.closed', 'The poll is closed');
      return found;
    });
    const chosen = checkBallot(poll, options, optionIds);
    return this.outbox.run(async (manager) => {
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
      await recordWritePresence(manager, { eventId, agentId: meta.caller, at: this.clock() });
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
      await this.outbox.announce(manager, [
        { type: EngagementTopics.pollVoted, subject: eventId, data: view },
      ]);
      return view;
    });
  }
}

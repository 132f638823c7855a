import type { EngagementReport } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { POLL_OPTION_COLUMNS, type PollOptionRow } from '../polls/poll-row.js';

/**
 * The report's polls (docs/product.md "The report"): every poll of the event, oldest first, with
 * its ballots and each option's votes as they are, also while a poll that shows its results only
 * once closed is open (the report is its host's and moderators').
 */
export async function pollsPart(manager: EntityManager, eventId: string): Promise<EngagementReport['polls']> {
  const polls = await queryRows<{ id: string; question: string; status: 'open' | 'closed'; ballots: number }>(
    manager,
    'SELECT id, question, status, ballots FROM engagement.polls WHERE event_id = $1 ORDER BY seq',
    [eventId],
  );
  if (polls.length === 0) return [];
  const options = await queryRows<PollOptionRow>(
    manager,
    `SELECT ${POLL_OPTION_COLUMNS} FROM engagement.poll_options WHERE poll_id = ANY($1::uuid[]) ORDER BY position`,
    [polls.map((poll) => poll.id)],
  );
  return polls.map((poll) => ({
    id: poll.id,
    question: poll.question,
    status: poll.status,
    ballots: poll.ballots,
    options: options
      .filter((option) => option.poll_id === poll.id)
      .map((option) => ({ id: option.id, label: option.label, votes: option.votes })),
  }));
}

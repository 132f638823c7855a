import type { PollView } from '@townhall/contracts';

/** A row of engagement.polls (see the migrations). */
export interface PollRow {
  id: string;
  seq: string;
  event_id: string;
  opener_id: string;
  question: string;
  multiple: boolean;
  results_visibility: 'live' | 'after_close';
  status: 'open' | 'closed';
  closes_at: Date | null;
  ballots: number;
  created_at: Date;
  closed_at: Date | null;
}

/** A row of engagement.poll_options. */
export interface PollOptionRow {
  poll_id: string;
  id: string;
  position: number;
  label: string;
  votes: number;
}

export const POLL_COLUMNS = `id, seq, event_id, opener_id, question, multiple, results_visibility, status, closes_at,
  ballots, created_at, closed_at`;
export const POLL_OPTION_COLUMNS = 'poll_id, id, position, label, votes';

/** The poll as everyone sees it: counts are hidden while results show only after closing and it is open. */
export function toPoll(row: PollRow, options: PollOptionRow[]): PollView {
  const hidden = row.results_visibility === 'after_close' && row.status === 'open';
  return {
    id: row.id,
    eventId: row.event_id,
    openerId: row.opener_id,
    question: row.question,
    options: options
      .filter((option) => option.poll_id === row.id)
      .sort((a, b) => a.position - b.position)
      .map((option) => ({ id: option.id, label: option.label, votes: hidden ? null : option.votes })),
    multiple: row.multiple,
    resultsVisibility: row.results_visibility,
    status: row.status,
    closesAt: row.closes_at ? row.closes_at.toISOString() : null,
    ballots: hidden ? null : row.ballots,
    createdAt: row.created_at.toISOString(),
    closedAt: row.closed_at ? row.closed_at.toISOString() : null,
  };
}

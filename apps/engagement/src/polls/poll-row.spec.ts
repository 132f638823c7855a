import { toPoll, type PollOptionRow, type PollRow } from './poll-row.js';

const poll: PollRow = {
  id: 'p1',
  seq: '1',
  event_id: 'e1',
  opener_id: 'agent',
  question: 'Ship on Friday?',
  multiple: false,
  results_visibility: 'after_close',
  status: 'open',
  closes_at: null,
  ballots: 3,
  created_at: new Date('2027-01-01T10:00:00Z'),
  closed_at: null,
};
const options: PollOptionRow[] = [
  { poll_id: 'p1', id: 'b', position: 1, label: 'No', votes: 1 },
  { poll_id: 'p1', id: 'a', position: 0, label: 'Yes', votes: 2 },
  { poll_id: 'p2', id: 'c', position: 0, label: 'Other poll', votes: 9 },
];

describe('a poll as everyone sees it', () => {
  it('hides counts while results show only after closing and the poll is open', () => {
    expect(toPoll(poll, options)).toMatchObject({
      ballots: null,
      options: [
        { id: 'a', label: 'Yes', votes: null },
        { id: 'b', label: 'No', votes: null },
      ],
    });
  });

  it('shows them once closed, or at once with live results, in option order and for this poll only', () => {
    const closedAt = new Date('2027-01-01T10:05:00Z');
    for (const row of [
      { ...poll, status: 'closed' as const, closed_at: closedAt },
      { ...poll, results_visibility: 'live' as const },
    ]) {
      expect(toPoll(row, options)).toMatchObject({
        ballots: 3,
        options: [{ votes: 2 }, { votes: 1 }],
      });
      expect(toPoll(row, options).options).toHaveLength(2);
    }
  });
});

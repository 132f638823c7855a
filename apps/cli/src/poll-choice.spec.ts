import type { PollView } from '@townhall/contracts';
import { optionIdsFor } from './poll-choice.js';

const poll: PollView = {
  id: 'p1',
  eventId: 'e1',
  openerId: 'a',
  question: 'Tabs or spaces?',
  options: [
    { id: 'o-tabs', label: 'Tabs', votes: 0 },
    { id: 'o-spaces', label: 'Spaces', votes: 0 },
  ],
  multiple: true,
  resultsVisibility: 'live',
  status: 'open',
  closesAt: null,
  ballots: 0,
  createdAt: '2027-03-04T19:00:00.000Z',
  closedAt: null,
};

describe('optionIdsFor', () => {
  it('takes option ids, numbers as listed, or labels', () => {
    expect(optionIdsFor(poll, ['o-spaces'])).toEqual(['o-spaces']);
    expect(optionIdsFor(poll, ['1', 'SPACES'])).toEqual(['o-tabs', 'o-spaces']);
  });

  it('names the options when a choice is none of them', () => {
    expect(() => optionIdsFor(poll, ['3'])).toThrow('"3" is not an option of this poll: 1. Tabs, 2. Spaces');
    expect(() => optionIdsFor(poll, ['emacs'])).toThrow('is not an option');
  });
});

import type { BlockView, QuestionView, StageMessageView } from '@townhall/contracts';
import { aStageMessageView, anEventView } from '@townhall/testing';
import { blockLine, blockTable, liveLine, questionLine, questionTable, stageLine } from './live-lines.js';

const event = anEventView({ id: 'e1', title: 'AMA', status: 'scheduled' });

describe('live lines', () => {
  it('lists questions with their votes', () => {
    const question: QuestionView = {
      id: 'q1',
      eventId: 'e1',
      authorId: 'a',
      body: 'Why?',
      upvotes: 2,
      state: 'open',
      createdAt: '2027-03-04T19:00:00.000Z',
    };
    expect(questionTable([question])).toEqual(['ID  STATE  UPVOTES  QUESTION', 'q1  open   2        Why?']);
  });

  it('shows report counts when the read has them (moderators, host)', () => {
    const question: QuestionView = {
      id: 'q1',
      eventId: 'e1',
      authorId: 'a',
      body: 'Why?',
      upvotes: 0,
      state: 'pending',
      reports: 3,
      createdAt: '2027-03-04T19:00:00.000Z',
    };
    expect(questionTable([question, { ...question, id: 'q22', state: 'open', reports: 1 }])).toEqual([
      'ID   STATE    UPVOTES  REPORTS  QUESTION',
      'q1   pending  0        3        Why?',
      'q22  open     0        1        Why?',
    ]);
    expect(questionLine(question)).toBe('question q1  pending  0 upvotes  3 reports  "Why?"');
    const { reports: _reports, ...publicView } = question;
    expect(questionLine({ ...publicView, state: 'withdrawn' })).toBe(
      'question q1  withdrawn  0 upvotes  "Why?"',
    );
  });

  it('lists blocks', () => {
    const block: BlockView = {
      eventId: 'e1',
      agentId: 'agent-b',
      blocked: true,
      blockedBy: 'host',
      blockedAt: '2027-03-04T19:05:00.000Z',
    };
    expect(blockLine(block)).toBe('agent-b blocked in e1 by host (2027-03-04 19:05 UTC)');
    expect(blockLine({ ...block, blocked: false, blockedBy: null, blockedAt: null })).toBe(
      'agent-b not blocked in e1',
    );
    expect(blockTable([block])).toEqual([
      'AGENT    BLOCKED BY  SINCE',
      'agent-b  host        2027-03-04 19:05 UTC',
    ]);
    expect(blockTable([])).toEqual(['nobody is blocked']);
  });

  it('prints live stream messages as one line each', () => {
    const message: StageMessageView = {
      id: 'm1',
      eventId: 'e1',
      sequence: 3,
      authorId: 'speaker',
      body: 'Hello',
      hidden: false,
      kind: 'message',
      questionId: null,
      createdAt: '2027-03-04T19:05:06.000Z',
    };
    const envelope = (type: string, data: unknown) => ({
      id: '7',
      type,
      event: {
        specversion: '1.0' as const,
        id: 'x',
        source: 'townhall/engagement',
        type,
        time: '2027-03-04T19:05:06.000Z',
        subject: 'e1',
        datacontenttype: 'application/json' as const,
        data,
      },
    });
    expect(liveLine(envelope('townhall.stage.posted', message))).toBe('#3 19:05:06 speaker: Hello');
    expect(liveLine(envelope('townhall.event.started', { ...event, status: 'live' }))).toBe(
      '* started: e1  live  "AMA"',
    );
    expect(liveLine(envelope('townhall.event.starting_soon', event))).toBe(
      '* starting_soon: e1  scheduled  "AMA"',
    );
    expect(liveLine(envelope('townhall.something.new', {}))).toBe('* townhall.something.new');
    const offered = {
      id: 'w1',
      eventId: 'e1',
      tierId: 'general',
      agentId: 'agent-a',
      position: null,
      status: 'offered',
      offerExpiresAt: '2027-03-04T19:20:00.000Z',
      createdAt: '2027-03-04T19:00:00.000Z',
      updatedAt: '2027-03-04T19:05:00.000Z',
    };
    expect(liveLine(envelope('townhall.waitlist.offered', offered))).toBe(
      '* waitlist.offered: waitlist w1  offered until 2027-03-04 19:20 UTC  tier general  event e1',
    );
    // An anonymous stream's ticket, refund or waitlist entry: counts, no one named.
    expect(
      liveLine(
        envelope('townhall.waitlist.offered', {
          eventId: 'e1',
          tierId: 'vip',
          counts: { waiting: -1, offered: 1 },
        }),
      ),
    ).toBe('* waitlist.offered: tier vip  waiting -1  offered +1');
    expect(
      liveLine(
        envelope('townhall.refund.paid', {
          eventId: 'e1',
          tierId: null,
          counts: { refundsOwed: -1, refundsPaid: 1 },
        }),
      ),
    ).toBe('* refund.paid: refundsOwed -1  refundsPaid +1');
    // An invite: whole on the invited agent's (and the staff's) signed stream, a count on the public one.
    const invite = {
      eventId: 'e1',
      agentId: 'agent-b',
      invitedBy: 'host',
      invitedAt: '2027-03-04T19:05:00.000Z',
    };
    expect(liveLine(envelope('townhall.invite.added', invite))).toBe(
      '* invite.added: agent-b invited to e1 by host (2027-03-04 19:05 UTC)',
    );
    expect(
      liveLine(envelope('townhall.invite.removed', { eventId: 'e1', tierId: null, counts: { invited: -1 } })),
    ).toBe('* invite.removed: invited -1');
    // A request to come: whole for the agent and the staff, a count on the public stream.
    const request = {
      eventId: 'e1',
      agentId: 'agent-b',
      status: 'declined',
      tierId: null,
      holdExpiresAt: null,
      requestedAt: '2027-03-04T19:05:00.000Z',
      decidedAt: '2027-03-04T19:10:00.000Z',
      decidedBy: 'host',
    };
    expect(liveLine(envelope('townhall.request.declined', request))).toBe(
      '* request.declined: agent-b asked to come to e1 (2027-03-04 19:05 UTC): declined by host (2027-03-04 19:10 UTC)',
    );
    expect(
      liveLine(
        envelope('townhall.request.requested', { eventId: 'e1', tierId: null, counts: { requested: 1 } }),
      ),
    ).toBe('* request.requested: requested +1');
  });

  it('prints a hidden stage message without its text, wherever it appears', () => {
    const hidden = aStageMessageView();
    const envelope = (type: string, data: unknown) => ({
      id: '8',
      type,
      event: {
        specversion: '1.0' as const,
        id: 'y',
        source: 'townhall/engagement',
        type,
        time: '2027-03-04T19:06:00.000Z',
        subject: 'e1',
        datacontenttype: 'application/json' as const,
        data,
      },
    });
    expect(stageLine(hidden)).toBe('#3 19:05:06 speaker: [hidden by a moderator]');
    expect(stageLine({ ...hidden, kind: 'question', questionId: 'q1' })).toBe(
      '#3 19:05:06 speaker: [question] [hidden by a moderator]',
    );
    expect(liveLine(envelope('townhall.stage.hidden', hidden))).toBe(
      '#3 19:05:06 speaker: [hidden by a moderator]',
    );

    const question: QuestionView = {
      id: 'q1',
      eventId: 'e1',
      authorId: 'a',
      body: 'Why?',
      upvotes: 4,
      state: 'pending',
      createdAt: '2027-03-04T19:00:00.000Z',
    };
    expect(liveLine(envelope('townhall.question.held', question))).toBe(
      '? held for review: question q1  pending  4 upvotes  "Why?"',
    );
    expect(liveLine(envelope('townhall.question.approved', { ...question, state: 'open' }))).toBe(
      '? question q1  open  4 upvotes  "Why?"',
    );
    expect(liveLine(envelope('townhall.question.withdrawn', { ...question, state: 'withdrawn' }))).toBe(
      '? question q1  withdrawn  4 upvotes  "Why?"',
    );
    expect(
      liveLine(
        envelope('townhall.question.reported', {
          question: { ...question, reports: 2 },
          reporterId: 'b',
          reason: 'spam',
        }),
      ),
    ).toBe('? reported by b (spam): question q1  pending  4 upvotes  2 reports  "Why?"');
    const block: BlockView = {
      eventId: 'e1',
      agentId: 'a',
      blocked: false,
      blockedBy: null,
      blockedAt: null,
    };
    expect(liveLine(envelope('townhall.participant.unblocked', block))).toBe('* a not blocked in e1');
  });
});

import type {
  AccessRequestView,
  BlockView,
  CodeView,
  InviteView,
  LedgerEntryView,
  QuestionView,
  StageMessageView,
} from '@townhall/contracts';
import { anEventView } from '@townhall/testing';
import type { TicketView } from '@townhall/contracts';
import {
  blockLine,
  blockTable,
  codeLine,
  codeTable,
  eventDetail,
  eventTable,
  inviteLine,
  invitesAddedLines,
  inviteTable,
  ledgerTable,
  liveLine,
  money,
  questionLine,
  questionTable,
  requestLine,
  requestTable,
  rsvpRequestLines,
  stageLine,
  table,
  ticketLine,
  ticketTable,
  ticketingSummary,
} from './render.js';

const event = anEventView({
  id: 'e1',
  title: 'AMA',
  startsAt: '2027-03-04T19:00:00.000Z',
  endsAt: '2027-03-04T20:00:00.000Z',
  hostId: 'host',
  capacity: 50,
  ticketing: { mode: 'single', price: '2500', asset: 'USDC' },
  status: 'scheduled',
  counts: { ticketsSold: { general: 3 }, questions: 0, polls: 0 },
  createdAt: '2027-03-01T00:00:00.000Z',
  updatedAt: '2027-03-01T00:00:00.000Z',
});

describe('human output', () => {
  it('aligns columns and never pads the last one', () => {
    expect(
      table(
        [
          ['a', 'long', 'x'],
          ['bbb', 's', 'y'],
        ],
        ['H1', 'H2', 'H3'],
      ),
    ).toEqual(['H1   H2    H3', 'a    long  x', 'bbb  s     y']);
  });

  it('lists tickets with their event (mine) or their holder (attendees)', () => {
    const ticket: TicketView = {
      id: 't1',
      eventId: 'e1',
      tierId: 'general',
      holderId: 'agent-a',
      status: 'active',
      price: '0',
      asset: null,
      network: null,
      transaction: null,
      code: null,
      createdAt: '2027-03-01T10:00:00.000Z',
      cancelledAt: null,
    };
    const paid: TicketView = { ...ticket, id: 't22', tierId: 'vip', price: '2500', asset: 'USDC' };
    expect(ticketTable([ticket, paid], 'event')).toEqual([
      'TICKET  STATUS  TIER     PRICE      SINCE                 EVENT',
      't1      active  general  free       2027-03-01 10:00 UTC  e1',
      't22     active  vip      2500 USDC  2027-03-01 10:00 UTC  e1',
    ]);
    expect(ticketTable([ticket], 'holder')[0]).toMatch(/ HOLDER$/);
    expect(ticketTable([ticket], 'holder')[1]).toMatch(/ agent-a$/);
    expect(ticketTable([], 'event')).toEqual(['no tickets']);
    // Bought with a host's code: a CODE column, its price what was paid.
    const coded: TicketView = { ...paid, id: 't3', price: '1875', code: 'SPRING25' };
    expect(ticketTable([ticket, coded], 'event')).toEqual([
      'TICKET  STATUS  TIER     PRICE      CODE      SINCE                 EVENT',
      't1      active  general  free       -         2027-03-01 10:00 UTC  e1',
      't3      active  vip      1875 USDC  SPRING25  2027-03-01 10:00 UTC  e1',
    ]);
    expect(ticketLine(coded)).toBe('ticket t3  active  tier vip  1875 USDC  event e1  code SPRING25');
    expect(ticketLine({ ...coded, price: '0', code: 'FRIENDS' })).toBe(
      'ticket t3  active  tier vip  free  event e1  code FRIENDS',
    );
    expect(ticketLine(paid)).toBe('ticket t22  active  tier vip  2500 USDC  event e1');
  });

  it("lists an event's codes with their discount, uses, tiers and expiry", () => {
    const spring: CodeView = {
      eventId: 'e1',
      code: 'SPRING25',
      percentOff: 25,
      amountOff: null,
      free: false,
      maxUses: 5,
      uses: 2,
      tierIds: ['general'],
      unlocksTierIds: [],
      expiresAt: '2027-03-04T19:00:00.000Z',
      createdAt: '2027-03-01T10:00:00.000Z',
    };
    const crew: CodeView = {
      ...spring,
      code: 'crew',
      percentOff: null,
      maxUses: null,
      uses: 7,
      tierIds: null,
      unlocksTierIds: ['backstage', 'green-room'],
      expiresAt: null,
    };
    const off: CodeView = { ...crew, code: 'LATE', amountOff: '500', unlocksTierIds: [], uses: 0 };
    const friends: CodeView = { ...off, code: 'FRIENDS', amountOff: null, free: true };
    expect(codeTable([spring, crew, off, friends])).toEqual([
      'CODE      DISCOUNT  USES         TIERS    UNLOCKS               EXPIRES',
      'SPRING25  25% off   2/5          general  -                     2027-03-04 19:00 UTC',
      'crew      -         7/unlimited  all      backstage,green-room  never',
      'LATE      500 off   0/unlimited  all      -                     never',
      'FRIENDS   free      0/unlimited  all      -                     never',
    ]);
    expect(codeTable([])).toEqual(['no codes']);
    expect(codeLine(spring)).toBe(
      'code SPRING25 for e1: 25% off, tiers general, 2/5 used, expires 2027-03-04 19:00 UTC',
    );
    expect(codeLine(crew)).toBe(
      'code crew for e1: no discount, tiers all it may buy, unlocks backstage,green-room, 7/unlimited used, never expires',
    );
  });

  it("shows a ledger entry's code when a payment among them had one", () => {
    const entry: LedgerEntryView = {
      id: 'l1',
      type: 'EVENT_TICKET',
      agentId: 'agent-a',
      amount: '-1875',
      asset: 'USDC',
      eventId: 'e1',
      ticketId: 't3',
      counterpartyId: 'host',
      network: null,
      transaction: null,
      code: null,
      createdAt: '2027-03-01T10:00:00.000Z',
    };
    expect(ledgerTable([entry])).toEqual([
      'WHEN                  TYPE          AMOUNT      EVENT     ENTRY',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -1875 USDC  event e1  l1',
    ]);
    expect(ledgerTable([entry, { ...entry, id: 'l2', code: 'SPRING25' }])).toEqual([
      'WHEN                  TYPE          AMOUNT      CODE      EVENT     ENTRY',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -1875 USDC  -         event e1  l1',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -1875 USDC  SPRING25  event e1  l2',
    ]);
  });

  it('says what tickets cost', () => {
    expect(money('2500', 'USDC')).toBe('2500 USDC');
    expect(ticketingSummary({ mode: 'free' })).toBe('free');
    expect(ticketingSummary(event.ticketing)).toBe('2500 USDC');
    expect(
      ticketingSummary({
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'vip', name: 'VIP', price: '5000', capacity: 5 },
          { id: 'std', name: 'Standard', price: '1000', capacity: 45 },
        ],
      }),
    ).toBe('vip 5000 USDC, std 1000 USDC');
    // A hidden tier is sold only with a code that unlocks it: its host sees which.
    expect(
      ticketingSummary({
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'std', name: 'Standard', price: '1000', capacity: 45 },
          { id: 'crew', name: 'Crew', price: '1', capacity: 5, hidden: true },
        ],
      }),
    ).toBe('std 1000 USDC, crew 1 USDC (hidden)');
  });

  it('lists events as a table', () => {
    expect(eventTable([event])).toEqual([
      'ID  STATUS     STARTS                PRICE      SOLD  TITLE',
      'e1  scheduled  2027-03-04 19:00 UTC  2500 USDC  3/50  AMA',
    ]);
    expect(eventTable([])).toEqual(['no events']);
  });

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

  it('says how questions are moderated', () => {
    expect(eventDetail(event)).toContain(
      '  moderation  post: questions are open at once; 3 reports send an open question back for review',
    );
    expect(
      eventDetail({ ...event, moderation: { questions: 'pre', reportThreshold: 1 } }).find((line) =>
        line.includes('moderation'),
      ),
    ).toBe('  moderation  pre: questions wait for approval; 1 report sends an open question back for review');
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

  it('says who may RSVP', () => {
    expect(eventDetail(event)).toContain('  access      open: anyone may RSVP');
    expect(eventDetail({ ...event, access: 'invite' })).toContain(
      '  access      invite: only the agents invited, the host and moderators may RSVP',
    );
    expect(eventDetail({ ...event, access: 'approval' })).toContain(
      '  access      approval: an RSVP asks; the host or a moderator approves or declines it',
    );
  });

  it('lists requests to come, and says where one stands', () => {
    const asked: AccessRequestView = {
      eventId: 'e1',
      agentId: 'agent-b',
      status: 'requested',
      tierId: null,
      holdExpiresAt: null,
      requestedAt: '2027-03-04T19:05:00.000Z',
      decidedAt: null,
      decidedBy: null,
    };
    const decided = { decidedAt: '2027-03-04T19:10:00.000Z', decidedBy: 'host' };
    const held: AccessRequestView = {
      ...asked,
      agentId: 'agent-carol',
      status: 'approved',
      tierId: 'vip',
      holdExpiresAt: '2027-03-04T19:25:00.000Z',
      ...decided,
    };
    const declined: AccessRequestView = { ...asked, status: 'declined', ...decided };
    expect(requestLine(asked)).toBe('agent-b asked to come to e1 (2027-03-04 19:05 UTC): not decided yet');
    expect(requestLine(held)).toBe(
      'agent-carol asked to come to e1, tier vip (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC), seat held until 2027-03-04 19:25 UTC',
    );
    // A free event's approval issues the ticket: no seat is held.
    expect(requestLine({ ...asked, status: 'approved', ...decided })).toBe(
      'agent-b asked to come to e1 (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC)',
    );
    expect(requestLine(declined)).toBe(
      'agent-b asked to come to e1 (2027-03-04 19:05 UTC): declined by host (2027-03-04 19:10 UTC)',
    );
    expect(requestTable([asked, held])).toEqual([
      'AGENT        STATUS     TIER  ASKED                 DECIDED BY  SEAT HELD UNTIL',
      'agent-b      requested  -     2027-03-04 19:05 UTC  -           -',
      'agent-carol  approved   vip   2027-03-04 19:05 UTC  host        2027-03-04 19:25 UTC',
    ]);
    expect(requestTable([])).toEqual(['nobody has asked to come']);
  });

  it("says what an RSVP's request means, and what to do next", () => {
    const asked: AccessRequestView = {
      eventId: 'e1',
      agentId: 'agent-b',
      status: 'requested',
      tierId: null,
      holdExpiresAt: null,
      requestedAt: '2027-03-04T19:05:00.000Z',
      decidedAt: null,
      decidedBy: null,
    };
    const decided = { decidedAt: '2027-03-04T19:10:00.000Z', decidedBy: 'host' };
    expect(rsvpRequestLines(asked)[0]).toBe(
      "request sent: waiting for the host's approval (nothing was charged; rsvp again once approved)",
    );
    expect(
      rsvpRequestLines({
        ...asked,
        status: 'approved',
        holdExpiresAt: '2027-03-04T19:25:00.000Z',
        ...decided,
      })[0],
    ).toBe('approved: rsvp again to pay until 2027-03-04 19:25 UTC (your seat is held until then)');
    expect(rsvpRequestLines({ ...asked, status: 'approved', ...decided })[0]).toBe(
      'approved: rsvp again for your ticket',
    );
    expect(rsvpRequestLines({ ...asked, status: 'declined', ...decided })).toEqual([
      'the host declined your request to come',
      'agent-b asked to come to e1 (2027-03-04 19:05 UTC): declined by host (2027-03-04 19:10 UTC)',
    ]);
  });

  it('lists invites, and says how many a call added', () => {
    const invite: InviteView = {
      eventId: 'e1',
      agentId: 'agent-b',
      invitedBy: 'host',
      invitedAt: '2027-03-04T19:05:00.000Z',
    };
    const carol: InviteView = { ...invite, agentId: 'agent-carol', invitedAt: '2027-03-05T08:00:00.000Z' };
    expect(inviteLine(invite)).toBe('agent-b invited to e1 by host (2027-03-04 19:05 UTC)');
    expect(inviteTable([invite, carol])).toEqual([
      'AGENT        INVITED BY  SINCE',
      'agent-b      host        2027-03-04 19:05 UTC',
      'agent-carol  host        2027-03-05 08:00 UTC',
    ]);
    expect(inviteTable([])).toEqual(['nobody is invited']);
    expect(invitesAddedLines({ invites: [invite, carol], added: 1 })[0]).toBe(
      '1 invited now, 1 invited before',
    );
    expect(invitesAddedLines({ invites: [invite], added: 1 })).toEqual([
      '1 invited now',
      'AGENT    INVITED BY  SINCE',
      'agent-b  host        2027-03-04 19:05 UTC',
    ]);
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
    const hidden: StageMessageView = {
      id: 'm1',
      eventId: 'e1',
      sequence: 3,
      authorId: 'speaker',
      body: null,
      hidden: true,
      kind: 'message',
      questionId: null,
      createdAt: '2027-03-04T19:05:06.000Z',
    };
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

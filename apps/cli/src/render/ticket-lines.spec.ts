import type { CodeView, InviteView, LedgerEntryView, TicketView } from '@townhall/contracts';
import { aCodeView, anAccessRequestView } from '@townhall/testing';
import {
  codeLine,
  codeTable,
  inviteLine,
  invitesAddedLines,
  inviteTable,
  ledgerTable,
  requestLine,
  requestTable,
  rsvpRequestLines,
  ticketLine,
  ticketTable,
} from './ticket-lines.js';

describe('ticket lines', () => {
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
      'TICKET  STATUS  TIER     PRICE        SINCE                 EVENT',
      't1      active  general  free         2027-03-01 10:00 UTC  e1',
      't22     active  vip      0.0025 USDC  2027-03-01 10:00 UTC  e1',
    ]);
    expect(ticketTable([ticket], 'holder')[0]).toMatch(/ HOLDER$/);
    expect(ticketTable([ticket], 'holder')[1]).toMatch(/ agent-a$/);
    expect(ticketTable([], 'event')).toEqual(['no tickets']);
    // Bought with a host's code: a CODE column, its price what was paid.
    const coded: TicketView = { ...paid, id: 't3', price: '1875', code: 'SPRING25' };
    expect(ticketTable([ticket, coded], 'event')).toEqual([
      'TICKET  STATUS  TIER     PRICE          CODE      SINCE                 EVENT',
      't1      active  general  free           -         2027-03-01 10:00 UTC  e1',
      't3      active  vip      0.001875 USDC  SPRING25  2027-03-01 10:00 UTC  e1',
    ]);
    expect(ticketLine(coded)).toBe(
      'ticket t3  active  tier vip  0.001875 USDC (1875)  event e1  code SPRING25',
    );
    expect(ticketLine({ ...coded, price: '0', code: 'FRIENDS' })).toBe(
      'ticket t3  active  tier vip  free  event e1  code FRIENDS',
    );
    expect(ticketLine(paid)).toBe('ticket t22  active  tier vip  0.0025 USDC (2500)  event e1');
  });

  it("lists an event's codes with their discount, uses, tiers and expiry", () => {
    const spring = aCodeView({ uses: 2, expiresAt: '2027-03-04T19:00:00.000Z' });
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
    expect(codeTable([spring, crew, off, friends], 'USDC')).toEqual([
      'CODE      DISCOUNT         USES         TIERS    UNLOCKS               EXPIRES',
      'SPRING25  25% off          2/5          general  -                     2027-03-04 19:00 UTC',
      'crew      -                7/unlimited  all      backstage,green-room  never',
      'LATE      0.0005 USDC off  0/unlimited  all      -                     never',
      'FRIENDS   free             0/unlimited  all      -                     never',
    ]);
    // An amount off counts in the event's asset: without it, the atomic units say so.
    expect(codeTable([off])[1]).toMatch(/^LATE {2}500 atomic units off {2}/);
    expect(codeLine(off, 'USDC')).toBe(
      'code LATE for e1: 0.0005 USDC (500) off, tiers all it may buy, 0/unlimited used, never expires',
    );
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
      'WHEN                  TYPE          AMOUNT          EVENT     ENTRY',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -0.001875 USDC  event e1  l1',
    ]);
    expect(ledgerTable([entry, { ...entry, id: 'l2', code: 'SPRING25' }])).toEqual([
      'WHEN                  TYPE          AMOUNT          CODE      EVENT     ENTRY',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -0.001875 USDC  -         event e1  l1',
      '2027-03-01 10:00 UTC  EVENT_TICKET  -0.001875 USDC  SPRING25  event e1  l2',
    ]);
    // Money in is signed too; an asset whose decimals are not known, in its atomic units.
    expect(
      ledgerTable([
        { ...entry, amount: '10000' },
        { ...entry, amount: '7', asset: 'EURC' },
      ]),
    ).toEqual([
      'WHEN                  TYPE          AMOUNT                   EVENT     ENTRY',
      '2027-03-01 10:00 UTC  EVENT_TICKET  +0.01 USDC               event e1  l1',
      '2027-03-01 10:00 UTC  EVENT_TICKET  +7 atomic units of EURC  event e1  l1',
    ]);
  });

  /** A request not decided yet, and what a host's decision adds to one. */
  const asked = anAccessRequestView();
  const decided = { decidedAt: '2027-03-04T19:10:00.000Z', decidedBy: 'host' };

  it('lists requests to come, and says where one stands', () => {
    const held = anAccessRequestView({
      agentId: 'agent-carol',
      status: 'approved',
      tierId: 'vip',
      holdExpiresAt: '2027-03-04T19:25:00.000Z',
      ...decided,
    });
    const declined = anAccessRequestView({ status: 'declined', ...decided });
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
});

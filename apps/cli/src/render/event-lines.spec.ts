import { anEventView } from '@townhall/testing';
import { eventDetail, eventTable, ticketingSummary } from './event-lines.js';

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

describe('event lines', () => {
  it('says what tickets cost', () => {
    expect(ticketingSummary({ mode: 'free' })).toBe('free');
    expect(ticketingSummary(event.ticketing)).toBe('0.0025 USDC');
    expect(ticketingSummary(event.ticketing, { atomic: true })).toBe('0.0025 USDC (2500)');
    expect(
      ticketingSummary({
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'vip', name: 'VIP', price: '5000', capacity: 5 },
          { id: 'std', name: 'Standard', price: '1000', capacity: 45 },
        ],
      }),
    ).toBe('vip 0.005 USDC, std 0.001 USDC');
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
    ).toBe('std 0.001 USDC, crew 0.000001 USDC (hidden)');
  });

  it('lists events as a table', () => {
    expect(eventTable([event])).toEqual([
      'ID  STATUS     STARTS                PRICE        SOLD  TITLE',
      'e1  scheduled  2027-03-04 19:00 UTC  0.0025 USDC  3/50  AMA',
    ]);
    expect(eventTable([])).toEqual(['no events']);
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

  it('says who may RSVP', () => {
    expect(eventDetail(event)).toContain('  access      open: anyone may RSVP');
    expect(eventDetail({ ...event, access: 'invite' })).toContain(
      '  access      invite: only the agents invited, the host and moderators may RSVP',
    );
    expect(eventDetail({ ...event, access: 'approval' })).toContain(
      '  access      approval: an RSVP asks; the host or a moderator approves or declines it',
    );
  });
});

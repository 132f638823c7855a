import type { EventReport } from '@townhall/contracts';

export const ADA = '7zY1zThH8MiGHiiutWjXrY4m9vReseAfUhFsV7CpVyof';
export const BOB = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
export const CYD = 'GjwcWFQYzemBtpUoN5fMAP2FZviTtMRWCmrppGuTthJS';

/** A question body that would run, were it not escaped. */
export const SCRIPT_QUESTION =
  '<script>window.__reportPwned = true</script><img src=x onerror="window.__reportPwned=true">';

const START = Date.parse('2027-03-04T18:00:00.000Z');
const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString();

/** An event nobody came to yet: every list empty, every count 0. */
export function emptyReport(overrides: Partial<EventReport> = {}): EventReport {
  return {
    eventId: 'e1',
    status: 'scheduled',
    generatedAt: '2027-03-04T17:00:00.000Z',
    registrations: { total: 0, byTier: {}, overTime: [] },
    revenue: [],
    refunds: { count: 0, amounts: [] },
    codes: [],
    attendance: { present: 0, peakConcurrent: 0, viewersOverTime: [], byAgent: [] },
    questions: { asked: 0, promoted: 0, upvotes: 0, top: [] },
    polls: [],
    stage: { messages: 0 },
    ...overrides,
  };
}

/**
 * A whole event: `registrationPoints` points of registrations and `viewerPoints` of viewers, three
 * tiers, two polls (three options and two), three top questions (one of them a script).
 */
export function fullReport({ registrationPoints = 12, viewerPoints = 30 } = {}): EventReport {
  return emptyReport({
    status: 'past',
    generatedAt: at(120),
    registrations: {
      total: 7,
      byTier: { general: 4, vip: 2, 'crew & "friends"': 1 },
      overTime: Array.from({ length: registrationPoints }, (_, n) => ({
        at: at(-600 + n * 10),
        total: Math.round(((n + 1) / registrationPoints) * 7),
      })),
    },
    revenue: [
      { asset: 'USDC', network: null, amount: '6500' },
      {
        asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: '2500000',
      },
    ],
    refunds: { count: 1, amounts: [{ asset: 'USDC', network: null, amount: '500' }] },
    codes: [{ code: 'HALF', uses: 1 }],
    attendance: {
      present: 3,
      peakConcurrent: 5,
      viewersOverTime: Array.from({ length: viewerPoints }, (_, n) => ({
        at: at(n * 2),
        viewers: (n * 7) % 6,
      })),
      byAgent: [
        { agentId: ADA, handle: 'ada', minutes: 58.25, firstSeenAt: at(0), lastSeenAt: at(60) },
        { agentId: BOB, handle: null, minutes: 12.5, firstSeenAt: at(3), lastSeenAt: at(20) },
        { agentId: CYD, handle: 'cyd', minutes: 0, firstSeenAt: at(30), lastSeenAt: at(30) },
      ],
    },
    questions: {
      asked: 4,
      promoted: 1,
      upvotes: 6,
      top: [
        { id: 'q1', authorId: BOB, body: 'How were the numbers made?', upvotes: 4, state: 'answered' },
        { id: 'q2', authorId: CYD, body: SCRIPT_QUESTION, upvotes: 2, state: 'open' },
        { id: 'q3', authorId: ADA, body: 'What comes next, & when?', upvotes: 0, state: 'open' },
      ],
    },
    polls: [
      {
        id: 'p1',
        question: 'Again next month?',
        status: 'closed',
        ballots: 3,
        options: [
          { id: 'o1', label: 'Yes', votes: 2 },
          { id: 'o2', label: 'No', votes: 1 },
          { id: 'o3', label: '<b>Maybe</b>', votes: 0 },
        ],
      },
      {
        id: 'p2',
        question: 'Tabs or spaces?',
        status: 'open',
        ballots: 0,
        options: [
          { id: 'o4', label: 'Tabs', votes: 0 },
          { id: 'o5', label: 'Spaces', votes: 0 },
        ],
      },
    ],
    stage: { messages: 12 },
  });
}

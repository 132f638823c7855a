import type { EventStatus, EventView, GENERAL_TIER, PollView, StageMessageView } from '@townhall/contracts';
import type { EventClock } from './event-clock.js';

/*
 * What the watch page's sections (rendered here) and its browser script (site/browser/watch/,
 * which adds and changes parts of the page as the live stream says) both say and count, defined
 * once so that a part the script adds reads exactly like the page's own. It imports nothing at
 * run time: the script's bundle takes it whole.
 */

/** What the browser script needs to follow the event, handed over in `<main data-watch>`. */
export interface WatchConfig {
  eventId: string;
  /** The event's status when the page was read; the script follows it from the live stream. */
  status: EventStatus;
  /** The zone the page shows times in (the script formats new ones in it). */
  timezone: string;
  /** The live stream's position the page was read at; null: resume from "now" and read the lists again. */
  lastEventId: string | null;
  /** How the stage names its authors (the host, moderators and speakers: agent-labels.ts). */
  labels: Record<string, string>;
}

/** The most stage messages one page reads (pages of 100 from the first). */
export const STAGE_LIMIT = 500;
/** One page of the top questions, and of the polls. */
export const LIST_LIMIT = 100;

/**
 * A stage message as the page shows it. Written to fit the contract both before and after
 * moderation (docs/product.md "Moderation"): a hidden message keeps its place with
 * `hidden: true` and `body: null`.
 */
export type StageMessageOnPage = Omit<StageMessageView, 'body' | 'hidden'> & {
  body: string | null;
  hidden?: boolean;
};

/** What a message a moderator hid says in its place (the sequence stays, the body is gone). */
export const HIDDEN_MESSAGE_TEXT = 'message removed by a moderator';

/** What a poll that shows its results only after closing says while it is open. */
export const RESULTS_HIDDEN_TEXT = 'Results are shown when the poll closes.';

/** The public question states as the page names them; the page never shows any other. */
export const QUESTION_STATE_LABELS: Readonly<Record<string, string>> = {
  open: 'Open',
  promoted: 'On stage',
  answered: 'Answered',
  dismissed: 'Dismissed',
};

/** Whether the page shows a question in this state. */
export function isShownQuestionState(state: string): boolean {
  return Object.hasOwn(QUESTION_STATE_LABELS, state);
}

/** What the page's status line says while the script follows the event's live stream. */
export function liveStatusText(status: EventStatus): string {
  if (status === 'past') return 'This event has ended.';
  if (status === 'cancelled') return 'This event was cancelled.';
  return 'Following live.';
}

/**
 * An agent id as the page shows it: its first six and last four characters (ids are 43 or 44
 * characters of base58).
 */
export function shortAgentId(agentId: string): string {
  return agentId.length > 12 ? `${agentId.slice(0, 6)}…${agentId.slice(-4)}` : agentId;
}

/** A stage message's author: the label the page has for it, else the short id. */
export function authorLabel(labels: Readonly<Record<string, string>>, agentId: string): string {
  return Object.hasOwn(labels, agentId) ? labels[agentId]! : shortAgentId(agentId);
}

export function upvotesText(upvotes: number): string {
  return upvotes === 1 ? '1 upvote' : `${upvotes} upvotes`;
}

/** `Open · 3 ballots · multiple choice · closes 19:30`, as one line of text. */
export function pollFacts(poll: PollView, clock: EventClock): string {
  const facts = [poll.status === 'open' ? 'Open' : 'Closed'];
  if (poll.ballots !== null) facts.push(poll.ballots === 1 ? '1 ballot' : `${poll.ballots} ballots`);
  if (poll.multiple) facts.push('multiple choice');
  if (poll.status === 'open' && poll.closesAt) facts.push(`closes ${clock.time(poll.closesAt)}`);
  return facts.join(' · ');
}

/** `2 votes (67%)`: the share of ballots, so multiple-choice shares may add up past 100%. */
export function votesText(votes: number, ballots: number): string {
  const share = ballots === 0 ? 0 : Math.round((votes / ballots) * 100);
  return `${votes === 1 ? '1 vote' : `${votes} votes`} (${share}%)`;
}

/** One tier's seats as the page shows them. */
export interface TierSeats {
  id: string;
  name: string;
  capacity: number;
  left: number;
}

/** The tier free and single-price events sell (@townhall/contracts `GENERAL_TIER`, checked by its type). */
const GENERAL: typeof GENERAL_TIER = 'general';

/**
 * Seats left per tier, from the event's capacity, its tiers and its `counts.ticketsSold`: a tier
 * sells at most its own capacity, and all tiers together at most the event's. A hidden tier is not
 * offered (docs/product.md "Codes": only a code that unlocks it buys it), so it is not listed; its
 * tickets still take seats of the event's capacity.
 */
export function seatsOf(event: EventView): TierSeats[] {
  const sold = event.counts.ticketsSold;
  const soldOf = (tier: string) => Math.max(0, sold[tier] ?? 0);
  const totalSold = Object.keys(sold).reduce((sum, tier) => sum + soldOf(tier), 0);
  const eventLeft = Math.max(0, event.capacity - totalSold);
  const ticketing = event.ticketing;
  if (ticketing.mode !== 'tiered')
    return [
      {
        id: GENERAL,
        name: ticketing.mode === 'free' ? 'Free admission' : 'Admission',
        capacity: event.capacity,
        left: eventLeft,
      },
    ];
  return ticketing.tiers
    .filter((tier) => tier.hidden !== true)
    .map((tier) => ({
      id: tier.id,
      name: tier.name,
      capacity: tier.capacity,
      left: Math.min(eventLeft, Math.max(0, tier.capacity - soldOf(tier.id))),
    }));
}

/** ` of 500 seats left`: what follows the number of seats left. */
export function seatsLeftText(tier: Pick<TierSeats, 'capacity'>): string {
  return ` of ${tier.capacity} ${tier.capacity === 1 ? 'seat' : 'seats'} left`;
}

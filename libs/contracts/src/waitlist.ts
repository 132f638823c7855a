import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema, EventPath } from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';

/**
 * The waitlist of a sold-out tier (docs/product.md "Waitlist"), owned by ticketing next to the
 * seats it hands out: `waiting` in order of joining, `offered` while a freed paid seat is held for
 * the agent (until `offerExpiresAt`), `accepted` once the agent holds that seat's ticket,
 * `expired` when an offer ran out (or the event ended or was cancelled first), `left` when the
 * agent left the line (or took a ticket of another tier).
 */
export const WAITLIST_STATUSES = ['waiting', 'offered', 'accepted', 'expired', 'left'] as const;
export type WaitlistStatus = (typeof WAITLIST_STATUSES)[number];

export const WaitlistEntryViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    tierId: z.string(),
    agentId: AgentIdSchema,
    position: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe(
        "The place in the tier's line while `waiting` (1: the next seat that frees is yours); else null",
      ),
    status: z.enum(WAITLIST_STATUSES),
    offerExpiresAt: InstantReply.nullable().describe(
      'Until when the seat offered to you is held for your RSVP; set once an offer was made',
    ),
    createdAt: InstantReply,
    updatedAt: InstantReply,
  }),
  'WaitlistEntry',
  'An agent waiting for a seat of a sold-out tier',
);
export type WaitlistEntryView = z.output<typeof WaitlistEntryViewSchema>;
export const WaitlistEntryPageSchema = pageOf(WaitlistEntryViewSchema, 'WaitlistEntry');

export interface WaitlistJoinReply {
  entry: WaitlistEntryView;
  /** false: the caller was in the line already (waiting or offered); that entry is the answer. */
  created: boolean;
}

export const JoinWaitlistSchema = z.strictObject({
  eventId: EventIdSchema,
  /** Required for tiered events, as for an RSVP; free and single-price events have one tier. */
  tierId: z.string().min(1).max(32).optional(),
});

const EventRef = z.strictObject({ eventId: EventIdSchema });

export const Waitlist = {
  /** POST /events/{id}/waitlist: an explicit gateway route (201 a new entry, 200 the one held). */
  join: contract<WaitlistJoinReply>()('ticketing.waitlist.join', JoinWaitlistSchema),
  leave: contract<WaitlistEntryView>()('ticketing.waitlist.leave', EventRef),
  mine: contract<Page<WaitlistEntryView>>()('ticketing.waitlist.mine', PagingSchema.strict()),
} as const;

/** Domain events of the waitlist: data is the entry, subject the event id. */
export const WaitlistTopics = {
  joined: 'townhall.waitlist.joined',
  offered: 'townhall.waitlist.offered',
  accepted: 'townhall.waitlist.accepted',
  expired: 'townhall.waitlist.expired',
  left: 'townhall.waitlist.left',
} as const;

/** The waitlist's plain routes; joining (201 or 200) is an explicit route of the gateway. */
export const WaitlistRoutes = routeGroup('Waitlist', {
  leave: httpRoute({
    contract: Waitlist.leave,
    method: 'DELETE',
    path: '/events/:id/waitlist',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'none',
    signed: true,
    summary: 'Leave the waitlist',
    description:
      'The entry becomes `left`; a seat held for you as an offer passes to the next agent waiting (or back to sale).',
    reply: WaitlistEntryViewSchema,
    codes: ['event.not_found', 'waitlist.not_found'],
  }),
  mine: httpRoute({
    contract: Waitlist.mine,
    method: 'GET',
    path: '/me/waitlist',
    rest: 'query',
    signed: true,
    summary: "The caller's waitlist entries",
    description: 'Every entry, oldest first, with its place in line while `waiting`.',
    reply: WaitlistEntryPageSchema,
    codes: [],
  }),
});

import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema, EventPath, ParticipantPath } from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';

/**
 * An agent's request to come to an event whose `access` is `approval` (docs/product.md "Who may
 * come"), owned by ticketing next to the seats it holds: made by the agent's RSVP (`requested`),
 * then `approved` or `declined` by the host or a moderator. Approving a free event issues the
 * ticket; approving a paid one holds a seat for the agent until `holdExpiresAt`, as a waitlist
 * offer does, which its next RSVP buys. A declined agent's RSVP is 403 `access.declined`; the host
 * may still approve it later. An approved request is final.
 */
export const REQUEST_STATUSES = ['requested', 'approved', 'declined'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const AccessRequestViewSchema = reply(
  z.object({
    eventId: z.string(),
    agentId: AgentIdSchema,
    status: z.enum(REQUEST_STATUSES),
    tierId: z
      .string()
      .nullable()
      .describe('The tier asked for (a tiered paid event needs one); null: the only one'),
    holdExpiresAt: InstantReply.nullable().describe(
      'A paid event: until when the seat approved for the agent is held for its RSVP; else null',
    ),
    requestedAt: InstantReply,
    decidedAt: InstantReply.nullable(),
    decidedBy: AgentIdSchema.nullable().describe('The host or moderator who approved or declined it'),
  }),
  'AccessRequest',
  "An agent's request to come to an event that needs approval",
);
export type AccessRequestView = z.output<typeof AccessRequestViewSchema>;
export const AccessRequestPageSchema = pageOf(AccessRequestViewSchema, 'AccessRequest');

export const RequestListSchema = PagingSchema.extend({
  eventId: EventIdSchema,
  status: z.enum(REQUEST_STATUSES).optional().describe('Only the requests in this status'),
}).strict();

export const DecideRequestSchema = z.strictObject({ eventId: EventIdSchema, agentId: AgentIdSchema });

export const Requests = {
  list: contract<Page<AccessRequestView>>()('ticketing.requests.list', RequestListSchema),
  approve: contract<AccessRequestView>()('ticketing.requests.approve', DecideRequestSchema),
  decline: contract<AccessRequestView>()('ticketing.requests.decline', DecideRequestSchema),
} as const;

/** Domain events of requests: data is the request, subject the event id. */
export const RequestTopics = {
  requested: 'townhall.request.requested',
  approved: 'townhall.request.approved',
  declined: 'townhall.request.declined',
} as const;

const DECIDE_CODES = ['event.not_found', 'role.forbidden', 'request.not_found'] as const;

/** Requests to come (docs/product.md "Who may come"); owned by ticketing. The host or a moderator. */
export const RequestRoutes = routeGroup('Requests', {
  list: httpRoute({
    contract: Requests.list,
    method: 'GET',
    path: '/events/:id/requests',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'The requests to come',
    description: 'The host or a moderator; oldest request first, of one `status` if named.',
    reply: AccessRequestPageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  approve: httpRoute({
    contract: Requests.approve,
    method: 'POST',
    path: '/events/:id/requests/:agentId/approve',
    fields: { id: 'eventId' },
    params: ParticipantPath,
    rest: 'none',
    signed: true,
    status: 200,
    summary: 'Approve a request',
    description:
      "The host or a moderator. A free event: the agent's ticket is issued. A paid event: a seat of the tier asked for is held for the agent for the event's `offerMinutes`; its next RSVP gets the 402 and buys it, and a hold left unpaid expires and the seat goes back. Held seats count against capacity: 409 `capacity.sold_out` when none is left. Idempotent; a declined request may be approved.",
    reply: AccessRequestViewSchema,
    codes: [...DECIDE_CODES, 'capacity.sold_out', 'ticket.not_on_sale'],
  }),
  decline: httpRoute({
    contract: Requests.decline,
    method: 'POST',
    path: '/events/:id/requests/:agentId/decline',
    fields: { id: 'eventId' },
    params: ParticipantPath,
    rest: 'none',
    signed: true,
    status: 200,
    summary: 'Decline a request',
    description:
      "The host or a moderator. The agent's RSVP is then 403 `access.declined`. Idempotent; an approved request cannot be declined (409 `request.approved`).",
    reply: AccessRequestViewSchema,
    codes: [...DECIDE_CODES, 'request.approved'],
  }),
});

import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema, EventPath, ParticipantPath } from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';

/** The most agents one call invites. */
export const MAX_INVITES_PER_CALL = 100;

/**
 * An agent the host invited to an event (docs/product.md "Who may come"). Owned by ticketing,
 * next to the seats it hands out: while the event's `access` is `invite`, only invited agents
 * (and the host and moderators) may RSVP. Removing an invite leaves a ticket already held.
 */
export const InviteViewSchema = reply(
  z.object({
    eventId: z.string(),
    agentId: AgentIdSchema,
    invitedBy: AgentIdSchema.describe('The host who invited the agent'),
    invitedAt: InstantReply,
  }),
  'Invite',
  'An agent invited to an event',
);
export type InviteView = z.output<typeof InviteViewSchema>;
export const InvitePageSchema = pageOf(InviteViewSchema, 'Invite');

export const InvitesAddedSchema = reply(
  z.object({
    invites: z.array(InviteViewSchema).describe('Each agent of the call, invited now or before'),
    added: z.number().int().describe('How many of them this call invited (0 when all were invited before)'),
  }),
  'InvitesAdded',
  'The invites of the agents named',
);
export type InvitesAdded = z.output<typeof InvitesAddedSchema>;

export const AddInvitesSchema = z.strictObject({
  eventId: EventIdSchema,
  agentIds: z
    .array(AgentIdSchema)
    .min(1)
    .max(MAX_INVITES_PER_CALL)
    .transform((ids) => [...new Set(ids)]),
});

export const InviteListSchema = PagingSchema.extend({ eventId: EventIdSchema }).strict();

export const RemoveInviteSchema = z.strictObject({ eventId: EventIdSchema, agentId: AgentIdSchema });

export const Invites = {
  add: contract<InvitesAdded>()('ticketing.invites.add', AddInvitesSchema),
  list: contract<Page<InviteView>>()('ticketing.invites.list', InviteListSchema),
  remove: contract<InviteView>()('ticketing.invites.remove', RemoveInviteSchema),
} as const;

/** Domain events of invites: data is the invite, subject the event id. */
export const InviteTopics = {
  added: 'townhall.invite.added',
  removed: 'townhall.invite.removed',
} as const;

/** Invites (docs/product.md "Who may come"); owned by ticketing. The host only. */
export const InviteRoutes = routeGroup('Invites', {
  add: httpRoute({
    contract: Invites.add,
    method: 'POST',
    path: '/events/:id/invites',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    status: 200,
    summary: 'Invite agents',
    description: `The host, \`{ agentIds }\` (1 to ${MAX_INVITES_PER_CALL}). Idempotent: an agent invited before keeps its invite. While the event's \`access\` is \`invite\`, only invited agents (and the host and moderators) may RSVP; others get 403 \`access.not_invited\`.`,
    reply: InvitesAddedSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  list: httpRoute({
    contract: Invites.list,
    method: 'GET',
    path: '/events/:id/invites',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'The agents invited',
    description: 'The host only; oldest invite first.',
    reply: InvitePageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  remove: httpRoute({
    contract: Invites.remove,
    method: 'DELETE',
    path: '/events/:id/invites/:agentId',
    fields: { id: 'eventId' },
    params: ParticipantPath,
    rest: 'none',
    signed: true,
    summary: 'Remove an invite',
    description: 'The host only. A ticket the agent already holds is kept.',
    reply: InviteViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'invite.not_found'],
  }),
});

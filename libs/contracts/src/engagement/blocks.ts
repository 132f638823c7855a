// Blocks (docs/product.md "Moderation"): who may no longer take part in an event, their contracts
// and routes.
import { z } from 'zod';
import { AgentIdSchema } from '../agent-id.js';
import { contract } from '../contract.js';
import { EventIdSchema, EventPath, ParticipantPath } from '../event-fields.js';
import { httpRoute, routeGroup } from '../http.js';
import { InstantReply, pageOf, reply } from '../replies.js';
import { PagingSchema, type Page } from '../page.js';

export const BlockViewSchema = reply(
  z.object({
    eventId: z.string(),
    agentId: AgentIdSchema,
    blocked: z.boolean(),
    blockedBy: AgentIdSchema.nullable().describe('The moderator or host who blocked; null when not blocked'),
    blockedAt: InstantReply.nullable(),
  }),
  'Block',
  'Whether an agent is blocked from taking part in an event',
);
export type BlockView = z.output<typeof BlockViewSchema>;
export const BlockPageSchema = pageOf(BlockViewSchema, 'Block');

export const BlockSetSchema = z.strictObject({
  eventId: EventIdSchema,
  agentId: AgentIdSchema,
  /** true to block (idempotent), false to unblock (idempotent). */
  blocked: z.boolean(),
});

export const BlockListSchema = PagingSchema.extend({ eventId: EventIdSchema }).strict();

export const Blocks = {
  set: contract<BlockView>()('engagement.block.set', BlockSetSchema),
  list: contract<Page<BlockView>>()('engagement.block.list', BlockListSchema),
} as const;

const blockRoute = {
  contract: Blocks.set,
  fields: { id: 'eventId' },
  params: ParticipantPath,
  rest: 'none',
  signed: true,
  status: 200,
  reply: BlockViewSchema,
  codes: ['event.not_found', 'role.forbidden', 'role.blocked'],
} as const;

/** Blocks (docs/product.md "Moderation"); owned by the engagement service. */
export const ModerationRoutes = routeGroup('Moderation', {
  /** Moderators and the host: `{ agentId }`; idempotent. */
  block: httpRoute({
    ...blockRoute,
    method: 'POST',
    path: '/events/:id/blocks',
    params: EventPath,
    rest: 'body',
    fixed: { blocked: true },
    summary: 'Block an agent in this event',
    description:
      'Moderators and the host, `{ agentId }`. The agent gets 403 `role.blocked` on questions, upvotes, reports, ballots and the stage of this event; its pending and open questions leave public view. Its ticket is kept. Blocking again is a no-op. The host cannot be blocked, and only the host can block a moderator.',
  }),
  unblock: httpRoute({
    ...blockRoute,
    method: 'DELETE',
    path: '/events/:id/blocks/:agentId',
    fixed: { blocked: false },
    summary: 'Unblock an agent',
    description: 'Moderators and the host; its open questions return to public view. Idempotent.',
  }),
  list: httpRoute({
    contract: Blocks.list,
    method: 'GET',
    path: '/events/:id/blocks',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'The agents blocked in this event',
    description: 'Moderators and the host; most recent first.',
    reply: BlockPageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
});

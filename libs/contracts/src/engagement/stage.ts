// The live stage (docs/product.md "Live stage, Q&A, polls"): its messages, their contracts and
// routes.
import { z } from 'zod';
import { AgentIdSchema } from '../agent-id.js';
import { contract } from '../contract.js';
import { EventIdSchema, EventPath, StageMessagePath } from '../event-fields.js';
import { httpRoute, routeGroup } from '../http.js';
import { InstantReply, pageOf, reply } from '../replies.js';
import { PagingSchema, SequenceQuerySchema, type Page } from '../page.js';

export const StageMessageViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    sequence: z.number().int().describe('Gap-free per event, from 1: read on with `?after=<sequence>`'),
    authorId: AgentIdSchema,
    body: z.string().nullable().describe('null once a moderator has hidden the message'),
    hidden: z.boolean().describe('Hidden by a moderator: the sequence stays, the body is gone'),
    kind: z.enum(['message', 'question']).describe('`question`: a promoted question put on stage'),
    questionId: z.string().nullable(),
    createdAt: InstantReply,
  }),
  'StageMessage',
);
export type StageMessageView = z.output<typeof StageMessageViewSchema>;
export const StageMessagePageSchema = pageOf(StageMessageViewSchema, 'StageMessage');

export const StagePostSchema = z.strictObject({
  eventId: EventIdSchema,
  body: z.string().trim().min(1, 'must not be empty').max(4000),
});

export const StageListSchema = PagingSchema.extend({
  eventId: EventIdSchema,
  after: SequenceQuerySchema.default(0),
}).strict();

export const StageHideSchema = z.strictObject({ eventId: EventIdSchema, messageId: EventIdSchema });

export const Stage = {
  post: contract<StageMessageView>()('engagement.stage.post', StagePostSchema),
  list: contract<Page<StageMessageView>>()('engagement.stage.list', StageListSchema),
  hide: contract<StageMessageView>()('engagement.stage.hide', StageHideSchema),
} as const;

/** The live stage (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
export const StageRoutes = routeGroup('Stage', {
  post: httpRoute({
    contract: Stage.post,
    method: 'POST',
    path: '/events/:id/stage',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    summary: 'Post to the stage',
    description: 'Speakers, moderators and the host, while the event is live.',
    reply: StageMessageViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'stage.closed'],
  }),
  /** Public, in order; poll with `?after=<last sequence seen>`. */
  list: httpRoute({
    contract: Stage.list,
    method: 'GET',
    path: '/events/:id/stage',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: false,
    summary: 'The stage messages, in order',
    description:
      'Poll with `?after=<the last sequence you saw>`, or follow `/events/{id}/live`. A message a moderator hid keeps its sequence with `hidden: true` and `body: null`.',
    reply: StageMessagePageSchema,
    codes: ['event.not_found'],
  }),
  /** Moderators and the host: the body leaves every public read and the public recording. */
  hide: httpRoute({
    contract: Stage.hide,
    method: 'POST',
    path: '/events/:id/stage/:mid/hide',
    fields: { id: 'eventId', mid: 'messageId' },
    params: StageMessagePath,
    rest: 'none',
    signed: true,
    status: 200,
    summary: 'Hide a stage message',
    description:
      'Moderators and the host. The message keeps its sequence; public reads, the live stream and the public recording show `hidden: true` and `body: null`. Hiding again is a no-op.',
    reply: StageMessageViewSchema,
    codes: ['event.not_found', 'stage.message_not_found', 'role.forbidden', 'role.blocked'],
  }),
});

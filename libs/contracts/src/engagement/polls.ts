// Polls (docs/product.md "Live stage, Q&A, polls"): their contracts and routes.
import { z } from 'zod';
import { AgentIdSchema } from '../agent-id.js';
import { contract } from '../contract.js';
import { EventIdSchema, EventPath, PollPath } from '../event-fields.js';
import { httpRoute, routeGroup } from '../http.js';
import { InstantReply, pageOf, reply } from '../replies.js';
import { PagingSchema, type Page } from '../page.js';
import { InstantSchema } from '../time.js';

export const PollViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    openerId: AgentIdSchema,
    question: z.string(),
    options: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        votes: z.number().int().nullable().describe('null while the results are hidden'),
      }),
    ),
    multiple: z.boolean(),
    resultsVisibility: z.enum(['live', 'after_close']),
    status: z.enum(['open', 'closed']),
    closesAt: InstantReply.nullable(),
    ballots: z.number().int().nullable().describe('Ballots cast; null while the results are hidden'),
    createdAt: InstantReply,
    closedAt: InstantReply.nullable(),
  }),
  'Poll',
);
export type PollView = z.output<typeof PollViewSchema>;
export type PollOptionView = PollView['options'][number];
export const PollPageSchema = pageOf(PollViewSchema, 'Poll');

export const PollOpenSchema = z.strictObject({
  eventId: EventIdSchema,
  question: z.string().trim().min(1, 'must not be empty').max(500),
  options: z
    .array(z.string().trim().min(1, 'must not be empty').max(200))
    .min(2, 'needs 2 to 10 options')
    .max(10, 'needs 2 to 10 options'),
  multiple: z.boolean().default(false),
  closesAt: InstantSchema.optional(),
  resultsVisibility: z.enum(['live', 'after_close']).default('live'),
});

export const PollListSchema = PagingSchema.extend({ eventId: EventIdSchema }).strict();

export const PollVoteSchema = z.strictObject({
  eventId: EventIdSchema,
  pollId: EventIdSchema,
  optionIds: z.array(z.string().min(1).max(100)).min(1, 'choose at least one option').max(10),
});

export const PollCloseSchema = z.strictObject({ eventId: EventIdSchema, pollId: EventIdSchema });

export const Polls = {
  open: contract<PollView>()('engagement.poll.open', PollOpenSchema),
  list: contract<Page<PollView>>()('engagement.poll.list', PollListSchema),
  vote: contract<PollView>()('engagement.poll.vote', PollVoteSchema),
  close: contract<PollView>()('engagement.poll.close', PollCloseSchema),
} as const;

/** Polls (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
export const PollRoutes = routeGroup('Polls', {
  open: httpRoute({
    contract: Polls.open,
    method: 'POST',
    path: '/events/:id/polls',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    summary: 'Open a poll',
    description: 'Speakers, moderators and the host, while live: 2 to 10 options.',
    reply: PollViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'poll.not_live'],
  }),
  list: httpRoute({
    contract: Polls.list,
    method: 'GET',
    path: '/events/:id/polls',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: false,
    summary: 'The polls, in opening order',
    description: 'Counts are null while a poll shows its results only after closing.',
    reply: PollPageSchema,
    codes: ['event.not_found'],
  }),
  /** One ballot per attendee: `{ optionIds }`; a second is 409 poll.already_voted. */
  vote: httpRoute({
    contract: Polls.vote,
    method: 'POST',
    path: '/events/:id/polls/:pid/vote',
    fields: { id: 'eventId', pid: 'pollId' },
    params: PollPath,
    rest: 'body',
    signed: true,
    status: 200,
    summary: 'Vote in a poll',
    description: 'Attendees, once per poll.',
    reply: PollViewSchema,
    codes: ['event.not_found', 'poll.not_found', 'role.forbidden', 'poll.closed', 'poll.already_voted'],
  }),
  close: httpRoute({
    contract: Polls.close,
    method: 'POST',
    path: '/events/:id/polls/:pid/close',
    fields: { id: 'eventId', pid: 'pollId' },
    params: PollPath,
    rest: 'none',
    signed: true,
    status: 200,
    summary: 'Close a poll',
    description: 'The opener, a moderator or the host.',
    reply: PollViewSchema,
    codes: ['event.not_found', 'poll.not_found', 'role.forbidden', 'poll.closed'],
  }),
});

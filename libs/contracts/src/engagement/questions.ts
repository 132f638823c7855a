// Q&A (docs/product.md "Live stage, Q&A, polls", "Moderation"): questions, their contracts and
// routes, and the staff-only report.
import { z } from 'zod';
import { AgentIdSchema } from '../agent-id.js';
import { contract } from '../contract.js';
import { EventIdSchema, EventPath, QuestionPath } from '../event-fields.js';
import type { ProblemCode } from '../problem-codes.js';
import { httpRoute, routeGroup } from '../http.js';
import { InstantReply, pageOf, reply } from '../replies.js';
import { busSchema } from '../bus-schemas.js';
import { PagingSchema, type Page } from '../page.js';

export const QUESTION_STATES = ['pending', 'open', 'promoted', 'answered', 'dismissed', 'withdrawn'] as const;
export type QuestionState = (typeof QUESTION_STATES)[number];
/** The states anyone may read; `pending` and `withdrawn` are for the author, moderators and the host. */
export const PUBLIC_QUESTION_STATES = [
  'open',
  'promoted',
  'answered',
  'dismissed',
] as const satisfies QuestionState[];

/** Whether anyone may read questions in `state` without signing. */
export function isPublicQuestionState(state: QuestionState): boolean {
  return (PUBLIC_QUESTION_STATES as readonly QuestionState[]).includes(state);
}

export const QuestionViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    authorId: AgentIdSchema,
    body: z.string(),
    upvotes: z.number().int(),
    state: z.enum(QUESTION_STATES),
    reports: z
      .number()
      .int()
      .optional()
      .describe('Reports by distinct attendees; only in reads signed by a moderator or the host'),
    createdAt: InstantReply,
  }),
  'Question',
);
export type QuestionView = z.output<typeof QuestionViewSchema>;
export const QuestionPageSchema = pageOf(QuestionViewSchema, 'Question');

export const QuestionSubmitSchema = z.strictObject({
  eventId: EventIdSchema,
  body: z.string().trim().min(1, 'must not be empty').max(1000),
});

export const QuestionListSchema = PagingSchema.extend({
  eventId: EventIdSchema,
  sort: z.enum(['top', 'new']).default('top'),
  state: z.enum(QUESTION_STATES).optional(),
}).strict();

export const QuestionUpvoteSchema = z.strictObject({
  eventId: EventIdSchema,
  questionId: EventIdSchema,
  /** true to upvote (idempotent), false to withdraw. */
  up: z.boolean(),
});

export const QuestionWithdrawSchema = z.strictObject({ eventId: EventIdSchema, questionId: EventIdSchema });

export const QuestionReportSchema = z.strictObject({
  eventId: EventIdSchema,
  questionId: EventIdSchema,
  reason: z.string().trim().min(1, 'must not be empty').max(500).optional(),
});

export const QUESTION_ACTIONS = ['approve', 'promote', 'answer', 'dismiss'] as const;
export type QuestionAction = (typeof QUESTION_ACTIONS)[number];

export const QuestionModerateSchema = z.strictObject({
  eventId: EventIdSchema,
  questionId: EventIdSchema,
  action: z.enum(QUESTION_ACTIONS),
});

export const Questions = {
  submit: contract<QuestionView>()('engagement.question.submit', QuestionSubmitSchema),
  list: contract<Page<QuestionView>>()('engagement.question.list', QuestionListSchema),
  upvote: contract<QuestionView>()('engagement.question.upvote', QuestionUpvoteSchema),
  moderate: contract<QuestionView>()('engagement.question.moderate', QuestionModerateSchema),
  withdraw: contract<QuestionView>()('engagement.question.withdraw', QuestionWithdrawSchema),
  report: contract<QuestionView>()('engagement.question.report', QuestionReportSchema),
} as const;

/** The data of `townhall.question.reported` (staff only): the question with its report count, and who reported. */
export const QuestionReportedSchema = busSchema(
  z.object({
    question: QuestionViewSchema,
    reporterId: AgentIdSchema,
    reason: z.string().nullable(),
  }),
  'QuestionReported',
  'A report of a question, for moderators and the host: the question (with `reports`), the reporter and the reason',
);
export type QuestionReported = z.output<typeof QuestionReportedSchema>;

/** What an upvote or its withdrawal can answer besides the common codes. */
const UPVOTE_CODES = [
  'event.not_found',
  'question.not_found',
  'role.forbidden',
  'question.closed',
  'question.own_upvote',
  'question.invalid_transition',
  'role.blocked',
] as const satisfies ProblemCode[];

/** What a moderation action (promote, answer, dismiss) can answer besides the common codes. */
const MODERATION_CODES = [
  'event.not_found',
  'question.not_found',
  'role.forbidden',
  'question.closed',
  'question.invalid_transition',
  'role.blocked',
] as const satisfies ProblemCode[];

const questionRoute = {
  fields: { id: 'eventId', qid: 'questionId' },
  params: QuestionPath,
  rest: 'none',
  signed: true,
  reply: QuestionViewSchema,
} as const;

/** Q&A (docs/product.md "Live stage, Q&A, polls"); owned by the engagement service. */
export const QuestionRoutes = routeGroup('Questions', {
  /** Attendees, while the event is scheduled or live. 201 with the question. */
  submit: httpRoute({
    contract: Questions.submit,
    method: 'POST',
    path: '/events/:id/questions',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    summary: 'Ask a question',
    description:
      'Attendees, while the event is scheduled (AMA pre-questions) or live; at most the service setting ' +
      'QUESTIONS_PER_MINUTE (default 5) per agent per event per minute (429 rate.limited).',
    reply: QuestionViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'role.blocked', 'question.closed', 'rate.limited'],
  }),
  /** Public: `?sort=top|new&state=&limit=&cursor=`; signed, also what only moderators see. */
  list: httpRoute({
    contract: Questions.list,
    method: 'GET',
    path: '/events/:id/questions',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: false,
    acceptsSignature: true,
    summary: 'The questions',
    description:
      'By upvotes then age (`sort=top`) or newest first (`sort=new`). Public reads show `open`, `promoted`, `answered` and `dismissed` questions, except the open ones of a blocked agent. Signed, the same read also takes `state=pending` or `state=withdrawn`: moderators and the host see every such question with its `reports`, an author their own.',
    reply: QuestionPageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  /** Idempotent: upvoting twice counts once. */
  upvote: httpRoute({
    ...questionRoute,
    contract: Questions.upvote,
    method: 'POST',
    path: '/events/:id/questions/:qid/upvote',
    fixed: { up: true },
    status: 200,
    summary: 'Upvote a question',
    description: 'Attendees, not the author; idempotent (counted once).',
    codes: [...UPVOTE_CODES],
  }),
  withdraw: httpRoute({
    ...questionRoute,
    contract: Questions.upvote,
    method: 'DELETE',
    path: '/events/:id/questions/:qid/upvote',
    fixed: { up: false },
    summary: 'Withdraw your upvote',
    description: 'Idempotent.',
    codes: [...UPVOTE_CODES],
  }),
  /** Moderators and the host: a pending question becomes open (public). */
  approve: httpRoute({
    ...questionRoute,
    contract: Questions.moderate,
    method: 'POST',
    path: '/events/:id/questions/:qid/approve',
    fixed: { action: 'approve' },
    status: 200,
    summary: 'Approve a pending question',
    description: 'Moderators and the host: `pending -> open`; the question appears in public reads.',
    codes: [...MODERATION_CODES],
  }),
  /** Its author: the question leaves every public read. */
  withdrawQuestion: httpRoute({
    ...questionRoute,
    contract: Questions.withdraw,
    method: 'POST',
    path: '/events/:id/questions/:qid/withdraw',
    status: 200,
    summary: 'Withdraw your question',
    description: 'Its author, while it is pending or open: `-> withdrawn`, gone from public reads.',
    codes: [
      'event.not_found',
      'question.not_found',
      'role.forbidden',
      'question.closed',
      'question.invalid_transition',
    ],
  }),
  /** Attendees, once each (again is a no-op); at the event's threshold an open question goes back to pending. */
  report: httpRoute({
    ...questionRoute,
    contract: Questions.report,
    method: 'POST',
    path: '/events/:id/questions/:qid/report',
    rest: 'body',
    status: 200,
    summary: 'Report a question',
    description:
      "Attendees, `{ reason? }`, once per agent (again: 200, counted once). At the event's `moderation.reportThreshold` an open question becomes `pending` and leaves public view until a moderator approves or dismisses it. Report counts are shown to moderators and the host only.",
    codes: [
      'event.not_found',
      'question.not_found',
      'role.forbidden',
      'role.blocked',
      'question.closed',
      'question.own_report',
      'question.invalid_transition',
    ],
  }),
  /** Moderators and the host; promoting puts the question on stage (live only). */
  promote: httpRoute({
    ...questionRoute,
    contract: Questions.moderate,
    method: 'POST',
    path: '/events/:id/questions/:qid/promote',
    fixed: { action: 'promote' },
    status: 200,
    summary: 'Put a question on stage',
    description: 'Moderators and the host, while live: the stage gets a message of kind `question`.',
    codes: [
      'event.not_found',
      'question.not_found',
      'role.forbidden',
      'stage.closed',
      'question.closed',
      'question.invalid_transition',
      'role.blocked',
    ],
  }),
  answer: httpRoute({
    ...questionRoute,
    contract: Questions.moderate,
    method: 'POST',
    path: '/events/:id/questions/:qid/answer',
    fixed: { action: 'answer' },
    status: 200,
    summary: 'Mark a question answered',
    description: 'Moderators and the host.',
    codes: [...MODERATION_CODES],
  }),
  dismiss: httpRoute({
    ...questionRoute,
    contract: Questions.moderate,
    method: 'POST',
    path: '/events/:id/questions/:qid/dismiss',
    fixed: { action: 'dismiss' },
    status: 200,
    summary: 'Dismiss a question',
    description: 'Moderators and the host.',
    codes: [...MODERATION_CODES],
  }),
});

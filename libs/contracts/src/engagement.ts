import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import {
  AgendaItemSchema,
  EventIdSchema,
  EventPath,
  ParticipantPath,
  PollPath,
  QuestionPath,
  StageMessagePath,
} from './events.js';
import type { ProblemCode } from './problem-codes.js';
import { httpRoute, routeGroup } from './http.js';
import { InstantReply, pageOf, reply } from './replies.js';
import { busSchema } from './bus-schemas.js';
import { PagingSchema, SequenceQuerySchema, type Page } from './page.js';
import { InstantSchema } from './time.js';

// ---- Live stage (docs/product.md "Live stage, Q&A, polls") ----

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

// ---- Q&A ----

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

// ---- Polls ----

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

// ---- Moderation: blocks ----

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

// ---- Recordings ----

export const RecordingViewSchema = reply(
  z.object({
    eventId: z.string(),
    published: z.boolean(),
    publishedAt: InstantReply.nullable(),
    mediaUrl: z.string().nullable(),
    summary: z.string().nullable(),
    transcript: z.object({
      agenda: z.array(AgendaItemSchema),
      stage: z.array(StageMessageViewSchema),
      questions: z.array(QuestionViewSchema),
      polls: z.array(PollViewSchema),
      attendance: z.object({
        ticketsIssued: z.number().int().describe('Every ticket issued before the end'),
        attendees: z.array(z.string()).describe("This page's agents holding a ticket at the end, by agentId"),
      }),
    }),
    nextCursor: z
      .string()
      .nullable()
      .describe(
        'The next page of `stage`, `questions`, `polls` and `attendance.attendees` (up to `limit` more of each); null on the last',
      ),
  }),
  'Recording',
  'What happened in an event, assembled when it ended: a page of each of its lists at a time',
);
export type RecordingView = z.output<typeof RecordingViewSchema>;

export const RecordingPublishSchema = z.strictObject({
  eventId: EventIdSchema,
  mediaUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  summary: z.string().max(10_000).optional(),
});

/** The most of each list of a recording in one page (`limit`, default 100). */
export const RECORDING_PAGE_LIMIT = 500;

/**
 * A page of a recording: up to `limit` stage messages, questions, polls and attendees, from where
 * `cursor` (the last page's `nextCursor`) left each list.
 */
export const RecordingPageSchema = z.strictObject({
  eventId: EventIdSchema,
  limit: z.coerce.number().int().min(1).max(RECORDING_PAGE_LIMIT).default(100),
  cursor: z.string().max(512).optional(),
});

export const Stage = {
  post: contract<StageMessageView>()('engagement.stage.post', StagePostSchema),
  list: contract<Page<StageMessageView>>()('engagement.stage.list', StageListSchema),
  hide: contract<StageMessageView>()('engagement.stage.hide', StageHideSchema),
} as const;

export const Questions = {
  submit: contract<QuestionView>()('engagement.question.submit', QuestionSubmitSchema),
  list: contract<Page<QuestionView>>()('engagement.question.list', QuestionListSchema),
  upvote: contract<QuestionView>()('engagement.question.upvote', QuestionUpvoteSchema),
  moderate: contract<QuestionView>()('engagement.question.moderate', QuestionModerateSchema),
  withdraw: contract<QuestionView>()('engagement.question.withdraw', QuestionWithdrawSchema),
  report: contract<QuestionView>()('engagement.question.report', QuestionReportSchema),
} as const;

export const Blocks = {
  set: contract<BlockView>()('engagement.block.set', BlockSetSchema),
  list: contract<Page<BlockView>>()('engagement.block.list', BlockListSchema),
} as const;

export const Polls = {
  open: contract<PollView>()('engagement.poll.open', PollOpenSchema),
  list: contract<Page<PollView>>()('engagement.poll.list', PollListSchema),
  vote: contract<PollView>()('engagement.poll.vote', PollVoteSchema),
  close: contract<PollView>()('engagement.poll.close', PollCloseSchema),
} as const;

export const Recordings = {
  get: contract<RecordingView>()('engagement.recording.get', RecordingPageSchema),
  publish: contract<RecordingView>()('engagement.recording.publish', RecordingPublishSchema),
} as const;

export const EngagementTopics = {
  stagePosted: 'townhall.stage.posted',
  questionSubmitted: 'townhall.question.submitted',
  questionUpvoted: 'townhall.question.upvoted',
  questionPromoted: 'townhall.question.promoted',
  questionAnswered: 'townhall.question.answered',
  questionDismissed: 'townhall.question.dismissed',
  questionApproved: 'townhall.question.approved',
  questionWithdrawn: 'townhall.question.withdrawn',
  /** Moderators and the host only (visibility `staff`): never on the public live stream. */
  questionReported: 'townhall.question.reported',
  /** An open question sent back to `pending` by reports: it leaves public view. */
  questionHeld: 'townhall.question.held',
  stageHidden: 'townhall.stage.hidden',
  participantBlocked: 'townhall.participant.blocked',
  participantUnblocked: 'townhall.participant.unblocked',
  pollOpened: 'townhall.poll.opened',
  pollVoted: 'townhall.poll.voted',
  pollClosed: 'townhall.poll.closed',
  recordingPublished: 'townhall.recording.published',
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

/** Whether an agent holds a live ticket: ticketing's answer to "is this agent an attendee". */
export interface AttendanceView {
  eventId: string;
  agentId: string;
  holdsTicket: boolean;
}

export const Attendance = {
  get: contract<AttendanceView>()(
    'ticketing.attendance.get',
    z.strictObject({ eventId: EventIdSchema, agentId: AgentIdSchema }),
  ),
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
      'Attendees, while the event is scheduled (AMA pre-questions) or live; 5 per minute per event.',
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

/** Recordings (docs/product.md "Recordings"); owned by the engagement service. */
export const RecordingRoutes = routeGroup('Recordings', {
  /** Public once published; 404 recording.not_found before. */
  get: httpRoute({
    contract: Recordings.get,
    method: 'GET',
    path: '/events/:id/recording',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: false,
    summary: 'The published recording',
    description:
      'Public once the host has published it. A page at a time: up to `limit` (default 100, at most 500) stage messages, questions, polls and attendees; `nextCursor` reads the next page of each.',
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found'],
  }),
  /** The host, signed, whether published or not (others: the published recording, or 403). */
  draft: httpRoute({
    contract: Recordings.get,
    method: 'GET',
    path: '/events/:id/recording/draft',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'The recording before it is published',
    description: 'The host, whether published or not; paged as the published recording is.',
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found', 'role.forbidden'],
  }),
  /** The host publishes: `{ mediaUrl?, summary? }`. */
  publish: httpRoute({
    contract: Recordings.publish,
    method: 'POST',
    path: '/events/:id/recording/publish',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    status: 200,
    summary: 'Publish the recording',
    description: 'The host, once the event has ended; publishing again updates `mediaUrl` and `summary`.',
    reply: RecordingViewSchema,
    codes: ['event.not_found', 'recording.not_found', 'role.forbidden'],
  }),
});

import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema, type AgendaItem } from './events.js';
import { PagingSchema, SequenceQuerySchema, type Page } from './page.js';
import { InstantSchema } from './time.js';

// ---- Live stage (docs/product.md "Live stage, Q&A, polls") ----

export interface StageMessageView {
  id: string;
  eventId: string;
  /** Gap-free per event, from 1: read with `?after=<sequence>`. */
  sequence: number;
  authorId: string;
  body: string;
  /** `question`: a promoted question put on stage. */
  kind: 'message' | 'question';
  questionId: string | null;
  createdAt: string;
}

export const StagePostSchema = z.strictObject({
  eventId: EventIdSchema,
  body: z.string().trim().min(1, 'must not be empty').max(4000),
});

export const StageListSchema = PagingSchema.extend({
  eventId: EventIdSchema,
  after: SequenceQuerySchema.default(0),
}).strict();

// ---- Q&A ----

export const QUESTION_STATES = ['open', 'promoted', 'answered', 'dismissed'] as const;
export type QuestionState = (typeof QUESTION_STATES)[number];

export interface QuestionView {
  id: string;
  eventId: string;
  authorId: string;
  body: string;
  upvotes: number;
  state: QuestionState;
  createdAt: string;
}

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

export const QUESTION_ACTIONS = ['promote', 'answer', 'dismiss'] as const;
export type QuestionAction = (typeof QUESTION_ACTIONS)[number];

export const QuestionModerateSchema = z.strictObject({
  eventId: EventIdSchema,
  questionId: EventIdSchema,
  action: z.enum(QUESTION_ACTIONS),
});

// ---- Polls ----

export interface PollOptionView {
  id: string;
  label: string;
  /** null while results are hidden (resultsVisibility `after_close` and the poll is open). */
  votes: number | null;
}

export interface PollView {
  id: string;
  eventId: string;
  openerId: string;
  question: string;
  options: PollOptionView[];
  multiple: boolean;
  resultsVisibility: 'live' | 'after_close';
  status: 'open' | 'closed';
  closesAt: string | null;
  /** Ballots cast (one per agent); null while results are hidden. */
  ballots: number | null;
  createdAt: string;
  closedAt: string | null;
}

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

// ---- Recordings ----

export interface RecordingView {
  eventId: string;
  published: boolean;
  publishedAt: string | null;
  mediaUrl: string | null;
  summary: string | null;
  transcript: {
    agenda: AgendaItem[];
    stage: StageMessageView[];
    questions: QuestionView[];
    polls: PollView[];
    attendance: { ticketsIssued: number; attendees: string[] };
  };
}

export const RecordingPublishSchema = z.strictObject({
  eventId: EventIdSchema,
  mediaUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  summary: z.string().max(10_000).optional(),
});

const EventRef = z.strictObject({ eventId: EventIdSchema });

export const Stage = {
  post: contract<StageMessageView>()('engagement.stage.post', StagePostSchema),
  list: contract<Page<StageMessageView>>()('engagement.stage.list', StageListSchema),
} as const;

export const Questions = {
  submit: contract<QuestionView>()('engagement.question.submit', QuestionSubmitSchema),
  list: contract<Page<QuestionView>>()('engagement.question.list', QuestionListSchema),
  upvote: contract<QuestionView>()('engagement.question.upvote', QuestionUpvoteSchema),
  moderate: contract<QuestionView>()('engagement.question.moderate', QuestionModerateSchema),
} as const;

export const Polls = {
  open: contract<PollView>()('engagement.poll.open', PollOpenSchema),
  list: contract<Page<PollView>>()('engagement.poll.list', PollListSchema),
  vote: contract<PollView>()('engagement.poll.vote', PollVoteSchema),
  close: contract<PollView>()('engagement.poll.close', PollCloseSchema),
} as const;

export const Recordings = {
  get: contract<RecordingView>()('engagement.recording.get', EventRef),
  publish: contract<RecordingView>()('engagement.recording.publish', RecordingPublishSchema),
} as const;

export const EngagementTopics = {
  stagePosted: 'townhall.stage.posted',
  questionSubmitted: 'townhall.question.submitted',
  questionUpvoted: 'townhall.question.upvoted',
  questionPromoted: 'townhall.question.promoted',
  questionAnswered: 'townhall.question.answered',
  questionDismissed: 'townhall.question.dismissed',
  pollOpened: 'townhall.poll.opened',
  pollVoted: 'townhall.poll.voted',
  pollClosed: 'townhall.poll.closed',
  recordingPublished: 'townhall.recording.published',
} as const;

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

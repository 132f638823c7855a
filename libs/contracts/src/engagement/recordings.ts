// Recordings (docs/product.md "Recordings"): what an event leaves once it ends, its contracts and
// routes.
import { z } from 'zod';
import { contract } from '../contract.js';
import { AgendaItemSchema, EventIdSchema, EventPath } from '../event-fields.js';
import { httpRoute, routeGroup } from '../http.js';
import { InstantReply, reply } from '../replies.js';
import { StageMessageViewSchema } from './stage.js';
import { QuestionViewSchema } from './questions.js';
import { PollViewSchema } from './polls.js';

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

export const Recordings = {
  get: contract<RecordingView>()('engagement.recording.get', RecordingPageSchema),
  publish: contract<RecordingView>()('engagement.recording.publish', RecordingPublishSchema),
} as const;

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

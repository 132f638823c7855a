import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { PagingSchema, type Page } from './page.js';
import { InstantSchema, TimeZoneSchema } from './time.js';
import { httpRoute, routeGroup } from './http.js';
import { InstantReply, pageOf, reply } from './replies.js';
import { busSchema } from './bus-schemas.js';

export const EVENT_STATUSES = ['scheduled', 'live', 'past', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export type EventRole = 'host' | 'moderator' | 'speaker';

/** Free and single-price events sell from one implicit tier with this id. */
export const GENERAL_TIER = 'general';
export const DEFAULT_ASSET = 'USDC';
const MAX_MINUTES = 31 * 24 * 60;

/** Amounts are integer strings of atomic units (no floats anywhere near money). */
export const PriceSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,29}$/, 'must be a positive integer string of atomic units');
export const AssetSchema = z
  .string()
  .regex(/^[A-Za-z0-9:._-]{1,64}$/, 'must be 1 to 64 characters of A-Z, a-z, 0-9, : . _ -');
export const CapacitySchema = z.number().int().min(1).max(1_000_000);

export const TierSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1 to 32 characters of a-z, 0-9, _ and -'),
  name: z.string().trim().min(1).max(100),
  price: PriceSchema,
  capacity: CapacitySchema,
  /**
   * Not offered (docs/product.md "Codes"): an RSVP buys it only with a code that unlocks it
   * (`unlocksTierIds`), and the 402 lists it only then.
   */
  hidden: z.boolean().optional(),
});
export type Tier = z.output<typeof TierSchema>;

export const TicketingSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('free') }),
  z.strictObject({
    mode: z.literal('single'),
    asset: AssetSchema.default(DEFAULT_ASSET),
    price: PriceSchema,
  }),
  z.strictObject({
    mode: z.literal('tiered'),
    asset: AssetSchema.default(DEFAULT_ASSET),
    tiers: z.array(TierSchema).min(1, 'needs at least one tier').max(10, 'at most 10 tiers'),
  }),
]);
export type Ticketing = z.output<typeof TicketingSchema>;

export const AgendaItemSchema = z.strictObject({
  title: z.string().trim().min(1).max(200),
  startOffsetMinutes: z.number().int().min(0).max(MAX_MINUTES).optional(),
  durationMinutes: z.number().int().min(1).max(MAX_MINUTES).optional(),
  speakerIds: z.array(AgentIdSchema).max(20).optional(),
});
export type AgendaItem = z.output<typeof AgendaItemSchema>;

export const QUESTION_MODERATION_MODES = ['post', 'pre'] as const;
export type QuestionModerationMode = (typeof QUESTION_MODERATION_MODES)[number];
const ReportThresholdSchema = z.number().int().min(1).max(100);

/**
 * How an event's questions are moderated (docs/product.md "Moderation"): `pre` holds every new
 * question as `pending` until a moderator approves it; in either mode `reportThreshold` reports
 * send an open question back to `pending`.
 */
export const ModerationSchema = z.strictObject({
  questions: z.enum(QUESTION_MODERATION_MODES).default('post'),
  reportThreshold: ReportThresholdSchema.default(3),
});
export type Moderation = z.output<typeof ModerationSchema>;
export const DEFAULT_MODERATION: Moderation = { questions: 'post', reportThreshold: 3 };

/**
 * How long a seat freed for the first agent on a paid tier's waitlist is held for that agent's
 * RSVP (docs/product.md "Waitlist"), in minutes.
 */
export const OfferMinutesSchema = z.number().int().min(1).max(1440);
export const DEFAULT_OFFER_MINUTES = 15;

/**
 * Who may take a ticket (docs/product.md "Who may come"): `open`, anyone with the price;
 * `approval`, the agents whose request (their first RSVP) the host or a moderator approved;
 * `invite`, only the agents the host invited (POST /events/{id}/invites). The host and moderators
 * are admitted in every mode, and so is an invited agent.
 */
export const ACCESS_MODES = ['open', 'approval', 'invite'] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];
export const AccessSchema = z.enum(ACCESS_MODES);

const AgentList = z
  .array(AgentIdSchema)
  .max(50)
  .transform((ids) => [...new Set(ids)]);

/** The editable fields of an event (docs/product.md "Event lifecycle"), each validated on its own. */
export const EventFieldsSchema = z.strictObject({
  title: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().max(5000).default(''),
  agenda: z.array(AgendaItemSchema).max(50).default([]),
  startsAt: InstantSchema,
  endsAt: InstantSchema,
  timezone: TimeZoneSchema,
  capacity: CapacitySchema,
  moderators: AgentList.default([]),
  speakers: AgentList.default([]),
  ticketing: TicketingSchema.default({ mode: 'free' }),
  moderation: ModerationSchema.default(DEFAULT_MODERATION),
  offerMinutes: OfferMinutesSchema.default(DEFAULT_OFFER_MINUTES),
  access: AccessSchema.default('open'),
});
export type EventFields = z.output<typeof EventFieldsSchema>;
export type EventFieldsInput = z.input<typeof EventFieldsSchema>;

/** PATCH: any subset; rules across fields are checked against the merged event by the service. */
export const EventChangesSchema = z.strictObject({
  title: EventFieldsSchema.shape.title.optional(),
  description: z.string().max(5000).optional(),
  agenda: z.array(AgendaItemSchema).max(50).optional(),
  startsAt: InstantSchema.optional(),
  endsAt: InstantSchema.optional(),
  timezone: TimeZoneSchema.optional(),
  capacity: CapacitySchema.optional(),
  moderators: AgentList.optional(),
  speakers: AgentList.optional(),
  ticketing: TicketingSchema.optional(),
  /** Either field alone; the other keeps its value. */
  moderation: z
    .strictObject({
      questions: z.enum(QUESTION_MODERATION_MODES).optional(),
      reportThreshold: ReportThresholdSchema.optional(),
    })
    .optional(),
  offerMinutes: OfferMinutesSchema.optional(),
  access: AccessSchema.optional(),
});
export type EventChanges = z.output<typeof EventChangesSchema>;
export type EventChangesInput = z.input<typeof EventChangesSchema>;

export const EventIdSchema = z.string().min(1).max(100);

// Path parameters as the OpenAPI document shows them, keyed as the routes name them; the values
// are the contracts' own schemas (the gateway passes `id` on as `eventId`).
export const EventPath = z.object({ id: EventIdSchema.describe('The event id') });
export const SeriesPath = z.object({ id: EventIdSchema.describe('The series id') });
export const QuestionPath = EventPath.extend({ qid: EventIdSchema.describe('The question id') });
export const PollPath = EventPath.extend({ pid: EventIdSchema.describe('The poll id') });
export const StageMessagePath = EventPath.extend({ mid: EventIdSchema.describe('The stage message id') });
export const ParticipantPath = EventPath.extend({ agentId: AgentIdSchema.describe('The agent') });

export const EventViewSchema = reply(
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    agenda: z.array(AgendaItemSchema),
    startsAt: InstantReply,
    endsAt: InstantReply,
    timezone: z.string().describe('IANA time zone'),
    hostId: AgentIdSchema,
    moderators: z.array(z.string()),
    speakers: z.array(z.string()),
    capacity: z.number().int(),
    ticketing: TicketingSchema,
    moderation: z.object({
      questions: z
        .enum(QUESTION_MODERATION_MODES)
        .describe('`pre`: new questions are `pending` until a moderator approves them'),
      reportThreshold: z
        .number()
        .int()
        .describe('Reports by distinct attendees that send an open question back to `pending`'),
    }),
    offerMinutes: z
      .number()
      .int()
      .describe('How long a seat offered to the first agent on a paid waitlist is held for it (minutes)'),
    access: AccessSchema.describe(
      '`open`: anyone may RSVP; `approval`: an RSVP is a request the host or a moderator approves or declines; `invite`: only the agents the host invited. The host, moderators and invited agents are admitted in every mode',
    ),
    status: z.enum(EVENT_STATUSES),
    seriesId: z.string().nullable(),
    counts: z.object({
      ticketsSold: z
        .record(z.string(), z.number().int())
        .describe('Tickets sold per tier id (`general` for free and single-price events)'),
      questions: z.number().int(),
      polls: z.number().int(),
    }),
    version: z.number().int().describe('Grows with every change of the event'),
    createdAt: InstantReply,
    updatedAt: InstantReply,
    startedAt: InstantReply.nullable(),
    endedAt: InstantReply.nullable(),
    cancelledAt: InstantReply.nullable(),
    recordingPublishedAt: InstantReply.nullable().describe(
      'When the host published the recording (GET /events/{id}/recording); null until then',
    ),
  }),
  'Event',
  'An event: `scheduled -> live -> past`, or `scheduled -> cancelled`',
);
/** An event; `version` grows with every change, so a newer view always has a higher one. */
export type EventView = z.output<typeof EventViewSchema>;
export type EventCounts = EventView['counts'];
export const EventPageSchema = pageOf(EventViewSchema, 'Event');

export const EventListQuerySchema = PagingSchema.extend({
  status: z.enum(EVENT_STATUSES).optional(),
  hostId: AgentIdSchema.optional(),
  seriesId: z.string().min(1).max(100).optional(),
  /** Events starting at or after this instant. */
  from: InstantSchema.optional(),
  /** Events starting before this instant. */
  to: InstantSchema.optional(),
  /** Words to find in the title or description. */
  q: z.string().trim().min(1).max(200).optional(),
}).strict();
export type EventListQuery = z.output<typeof EventListQuerySchema>;
export type EventListQueryInput = z.input<typeof EventListQuerySchema>;

export const LIFECYCLE_ACTIONS = ['start', 'end', 'cancel'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

/** What another service needs to know to authorise an agent in an event. */
export interface EventAccess {
  eventId: string;
  status: EventStatus;
  hostId: string;
  /** The agent's role by appointment; attendance (tickets) is ticketing's to answer. */
  role: EventRole | null;
  startsAt: string;
  endsAt: string;
  capacity: number;
  ticketing: Ticketing;
  moderation: Moderation;
  /** How long a waitlist offer of a paid seat holds it (docs/product.md "Waitlist"). */
  offerMinutes: number;
  /** Who may take a ticket (docs/product.md "Who may come"). */
  access: AccessMode;
  moderators: string[];
  speakers: string[];
  seriesId: string | null;
  version: number;
  updatedAt: string;
}

// ---- Series ----

export const SeriesTemplateSchema = z.strictObject({
  durationMinutes: z.number().int().min(1).max(MAX_MINUTES),
  capacity: CapacitySchema,
  ticketing: TicketingSchema.default({ mode: 'free' }),
  agenda: z.array(AgendaItemSchema).max(50).default([]),
  moderators: AgentList.default([]),
  speakers: AgentList.default([]),
  /** Each occurrence's access; an occurrence's invites are its own. */
  access: AccessSchema.default('open'),
});
export type SeriesTemplate = z.output<typeof SeriesTemplateSchema>;

/** The transport shape; the events service validates the rule itself (RRULE subset, dates). */
export const SeriesRecurrenceShape = z.strictObject({
  startsAt: z.string().max(40),
  timezone: z.string().max(100),
  rrule: z.string().max(500),
});

export const CreateSeriesSchema = z.strictObject({
  title: z.string().trim().min(1, 'must not be empty').max(200),
  description: z.string().max(5000).default(''),
  recurrence: SeriesRecurrenceShape,
  template: SeriesTemplateSchema,
});
export type CreateSeries = z.output<typeof CreateSeriesSchema>;
export type CreateSeriesInput = z.input<typeof CreateSeriesSchema>;

export const SeriesViewSchema = reply(
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    hostId: AgentIdSchema,
    recurrence: z.object({
      startsAt: z.string().describe('Local date-time without offset, e.g. 2027-03-04T19:00'),
      timezone: z.string(),
      rrule: z.string().describe('RFC 5545 RRULE subset, e.g. FREQ=WEEKLY;BYDAY=TH;COUNT=10'),
    }),
    template: SeriesTemplateSchema.extend({ moderators: z.array(z.string()), speakers: z.array(z.string()) }),
    followerCount: z.number().int(),
    upcoming: z
      .array(z.object({ eventId: z.string(), startsAt: InstantReply, status: z.enum(EVENT_STATUSES) }))
      .describe('The next occurrences that are scheduled or live (up to 10)'),
    endedAt: InstantReply.nullable().describe(
      'When the host ended the series: no occurrence is scheduled after that; those scheduled before it stay',
    ),
    createdAt: InstantReply,
    updatedAt: InstantReply,
  }),
  'Series',
  'A recurring series; its occurrences are ordinary events with `seriesId`',
);
export type SeriesView = z.output<typeof SeriesViewSchema>;
export type SeriesOccurrence = SeriesView['upcoming'][number];
export const SeriesPageSchema = pageOf(SeriesViewSchema, 'Series');

/** Public: newest first; filter by host and words. Keyset paging on (createdAt, id). */
export const SeriesListQuerySchema = PagingSchema.extend({
  hostId: AgentIdSchema.optional(),
  /** Words to find in the title or description. */
  q: z.string().trim().min(1).max(200).optional(),
}).strict();
export type SeriesListQuery = z.output<typeof SeriesListQuerySchema>;
export type SeriesListQueryInput = z.input<typeof SeriesListQuerySchema>;

export interface CalendarFile {
  filename: string;
  body: string;
}

/**
 * A series' calendar file, or only its entity tag when the caller's `ifNoneMatch` names it: the
 * tag comes from one query of the occurrences' versions, so a conditional read renders nothing.
 */
export interface SeriesCalendarFile {
  filename: string;
  etag: string;
  /** Null when `ifNoneMatch` named `etag` (the caller's copy is current). */
  body: string | null;
}

const EventRef = z.strictObject({ eventId: EventIdSchema });
const SeriesRef = z.strictObject({ seriesId: EventIdSchema });

export const Events = {
  create: contract<EventView>()('events.event.create', EventFieldsSchema),
  list: contract<Page<EventView>>()('events.event.list', EventListQuerySchema),
  get: contract<EventView>()('events.event.get', EventRef),
  update: contract<EventView>()(
    'events.event.update',
    z.strictObject({ eventId: EventIdSchema, changes: EventChangesSchema }),
  ),
  transition: contract<EventView>()(
    'events.event.transition',
    z.strictObject({ eventId: EventIdSchema, action: z.enum(LIFECYCLE_ACTIONS) }),
  ),
  access: contract<EventAccess>()(
    'events.event.access',
    z.strictObject({ eventId: EventIdSchema, agentId: AgentIdSchema }),
  ),
  calendar: contract<CalendarFile>()('events.event.calendar', EventRef),
} as const;

export const Series = {
  create: contract<SeriesView>()('events.series.create', CreateSeriesSchema),
  list: contract<Page<SeriesView>>()('events.series.list', SeriesListQuerySchema),
  get: contract<SeriesView>()('events.series.get', SeriesRef),
  follow: contract<SeriesView>()(
    'events.series.follow',
    z.strictObject({ seriesId: EventIdSchema, follow: z.boolean() }),
  ),
  /** The host ends a series: nothing more is scheduled (docs/product.md "Series"). */
  end: contract<SeriesView>()('events.series.end', SeriesRef),
  calendar: contract<SeriesCalendarFile>()(
    'events.series.calendar',
    z.strictObject({ seriesId: EventIdSchema, ifNoneMatch: z.string().max(1000).optional() }),
  ),
} as const;

// ---- Domain events (data: EventView for townhall.event.*, SeriesView for series.created) ----

export const EventTopics = {
  scheduled: 'townhall.event.scheduled',
  updated: 'townhall.event.updated',
  started: 'townhall.event.started',
  ended: 'townhall.event.ended',
  cancelled: 'townhall.event.cancelled',
  /** Once per start time, EVENT_REMINDER_LEAD_MINUTES before it (the events service's reminder job). */
  startingSoon: 'townhall.event.starting_soon',
} as const;

export const SeriesTopics = {
  created: 'townhall.series.created',
  followed: 'townhall.series.followed',
  unfollowed: 'townhall.series.unfollowed',
  ended: 'townhall.series.ended',
} as const;

export const SeriesFollowChangeSchema = busSchema(
  z.object({ seriesId: z.string(), agentId: AgentIdSchema }),
  'SeriesFollowChange',
  'An agent started or stopped following a series',
);
export type SeriesFollowChange = z.output<typeof SeriesFollowChangeSchema>;

const lifecycle = {
  method: 'POST',
  fields: { id: 'eventId' },
  params: EventPath,
  rest: 'none',
  signed: true,
  status: 200,
  reply: EventViewSchema,
  codes: ['event.not_found', 'role.forbidden', 'event.invalid_transition'],
} as const;

/** Events' plain routes (docs/product.md "Event lifecycle"); the calendar file is an explicit route. */
export const EventRoutes = routeGroup('Events', {
  /** Schedules an event; the caller becomes its host. */
  create: httpRoute({
    contract: Events.create,
    method: 'POST',
    path: '/events',
    rest: 'body',
    signed: true,
    summary: 'Schedule an event',
    description:
      'The caller becomes its host. An agent hosts at most `EVENTS_PER_HOST_LIMIT` (default 50) one-off events that are scheduled or live at once: 409 `event.limit_reached` past it.',
    reply: EventViewSchema,
    codes: ['event.limit_reached'],
  }),
  /**
   * Public: filter by status, hostId, seriesId, from/to (start time) and q; events with a ticket
   * holder first, each part by start; cursor paging.
   */
  list: httpRoute({
    contract: Events.list,
    method: 'GET',
    path: '/events',
    rest: 'query',
    signed: false,
    summary: 'List events',
    description:
      'Events that at least one agent holds a ticket in first, then the others, each part sorted by `startsAt` (creating events costs nothing; a ticket holder is what a host cannot make alone). Filter by status, host, series, start time and words.',
    reply: EventPageSchema,
    codes: [],
  }),
  get: httpRoute({
    contract: Events.get,
    method: 'GET',
    path: '/events/:id',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'none',
    signed: false,
    summary: 'An event',
    reply: EventViewSchema,
    codes: ['event.not_found'],
  }),
  /** The host edits a scheduled event: any subset of the creation fields. */
  update: httpRoute({
    contract: Events.update,
    method: 'PATCH',
    path: '/events/:id',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    bodyField: 'changes',
    signed: true,
    summary: 'Edit a scheduled event',
    description: 'The host only; any subset of the creation fields. Capacity never drops below tickets sold.',
    reply: EventViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'event.not_editable', 'event.capacity_below_sold'],
  }),
  start: httpRoute({
    ...lifecycle,
    contract: Events.transition,
    path: '/events/:id/start',
    fixed: { action: 'start' },
    summary: 'Start the event (scheduled -> live)',
    description: 'The host only; opens the stage.',
  }),
  end: httpRoute({
    ...lifecycle,
    contract: Events.transition,
    path: '/events/:id/end',
    fixed: { action: 'end' },
    summary: 'End the event (live -> past)',
    description: 'The host only; closes the polls and assembles the recording.',
  }),
  cancel: httpRoute({
    ...lifecycle,
    contract: Events.transition,
    path: '/events/:id/cancel',
    fixed: { action: 'cancel' },
    summary: 'Cancel the event (scheduled -> cancelled)',
    description: 'The host only; cancels every ticket and refunds each paid one in full.',
  }),
});

const following = {
  fields: { id: 'seriesId' },
  params: SeriesPath,
  rest: 'none',
  signed: true,
  reply: SeriesViewSchema,
  codes: ['series.not_found'],
} as const;

/** Recurring series' plain routes (docs/product.md "Series"); the calendar file is an explicit route. */
export const SeriesRoutes = routeGroup('Series', {
  create: httpRoute({
    contract: Series.create,
    method: 'POST',
    path: '/events/series',
    rest: 'body',
    signed: true,
    summary: 'Create a recurring series',
    description:
      'An event template and an RRULE subset (`FREQ` DAILY/WEEKLY/MONTHLY, `INTERVAL`, `BYDAY`, `BYMONTHDAY`, `COUNT`, `UNTIL`) in an IANA time zone; occurrences keep their local wall-clock time across DST. Answers with the first upcoming occurrences. An agent hosts at most `SERIES_PER_HOST_LIMIT` (default 10) series that have not ended: 409 `series.limit_reached` past it.',
    reply: SeriesViewSchema,
    codes: ['series.limit_reached'],
  }),
  /** Public: filter by hostId and q; newest first; cursor paging. */
  list: httpRoute({
    contract: Series.list,
    method: 'GET',
    path: '/events/series',
    rest: 'query',
    signed: false,
    summary: 'List series',
    description:
      'Newest first; filter by host (`hostId`) and words in the title or description (`q`). Each series comes with its `followerCount` and next `upcoming` occurrences, as `GET /events/series/{id}` shows it.',
    reply: SeriesPageSchema,
    codes: [],
  }),
  get: httpRoute({
    contract: Series.get,
    method: 'GET',
    path: '/events/series/:id',
    fields: { id: 'seriesId' },
    params: SeriesPath,
    rest: 'none',
    signed: false,
    summary: 'A series',
    description: 'With `followerCount` and the next 10 `upcoming` occurrences.',
    reply: SeriesViewSchema,
    codes: ['series.not_found'],
  }),
  /** Following RSVPs the follower to the next free occurrence, and each later one as it becomes the next (done by ticketing). */
  follow: httpRoute({
    ...following,
    contract: Series.follow,
    method: 'POST',
    path: '/events/series/:id/follow',
    fixed: { follow: true },
    status: 200,
    summary: 'Follow a series',
    description:
      'RSVPs the caller to the next free occurrence with a seat, and to each later one when it becomes the next (once the one before has started), if a seat is still free then. Until then a later occurrence is open to everyone. Idempotent.',
  }),
  unfollow: httpRoute({
    ...following,
    contract: Series.follow,
    method: 'DELETE',
    path: '/events/series/:id/follow',
    fixed: { follow: false },
    summary: 'Stop following a series',
    description: 'Stops future automatic RSVPs (idempotent).',
  }),
  /** The host ends the series: idempotent, an ended series answers as it is. */
  end: httpRoute({
    contract: Series.end,
    method: 'POST',
    path: '/events/series/:id/end',
    fields: { id: 'seriesId' },
    params: SeriesPath,
    rest: 'none',
    signed: true,
    status: 200,
    summary: 'End a series',
    description:
      'The host only. No occurrence is scheduled after this; each occurrence not yet started that nobody holds a ticket for is cancelled, and those with tickets stay (the host may cancel each, which refunds its tickets). Ending an ended series answers the same series (idempotent).',
    reply: SeriesViewSchema,
    codes: ['series.not_found', 'role.forbidden'],
  }),
});

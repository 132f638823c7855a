import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { busSchema } from './bus-schemas.js';
import type { SeriesCalendarFile } from './calendar.js';
import { contract } from './contract.js';
import {
  AccessSchema,
  AgendaItemSchema,
  CapacitySchema,
  EventIdSchema,
  SeriesPath,
  TicketingSchema,
} from './event-fields.js';
import { AgentList, MAX_MINUTES } from './event-limits.js';
import { EVENT_STATUSES } from './events.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';

// Recurring series (docs/product.md "Series"): a template and a rule, whose occurrences are
// ordinary events with a `seriesId`.

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

const SeriesRef = z.strictObject({ seriesId: EventIdSchema });

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

// ---- Domain events (data: SeriesView for created and ended, SeriesFollowChange for followed and unfollowed) ----

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

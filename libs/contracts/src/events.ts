import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import type { CalendarFile } from './calendar.js';
import { contract } from './contract.js';
import {
  AccessSchema,
  AgendaItemSchema,
  EventChangesSchema,
  EventFieldsSchema,
  EventIdSchema,
  EventPath,
  QUESTION_MODERATION_MODES,
  TicketingSchema,
  type AccessMode,
  type Moderation,
  type Ticketing,
} from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';
import { InstantSchema } from './time.js';

export const EVENT_STATUSES = ['scheduled', 'live', 'past', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export type EventRole = 'host' | 'moderator' | 'speaker';

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

const EventRef = z.strictObject({ eventId: EventIdSchema });

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

// ---- Domain events (data: EventView) ----

export const EventTopics = {
  scheduled: 'townhall.event.scheduled',
  updated: 'townhall.event.updated',
  started: 'townhall.event.started',
  ended: 'townhall.event.ended',
  cancelled: 'townhall.event.cancelled',
  /** Once per start time, EVENT_REMINDER_LEAD_MINUTES before it (the events service's reminder job). */
  startingSoon: 'townhall.event.starting_soon',
} as const;

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

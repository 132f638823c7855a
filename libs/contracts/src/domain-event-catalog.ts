import type { z } from 'zod';
import type { CloudEvent } from './domain-events.js';
import {
  BlockViewSchema,
  EngagementTopics,
  PollViewSchema,
  QuestionReportedSchema,
  QuestionViewSchema,
  RecordingViewSchema,
  StageMessageViewSchema,
} from './engagement.js';
import { DirectoryCardSchema, DirectoryTopics } from './directory.js';
import { EventTopics, EventViewSchema } from './events.js';
import { SeriesFollowChangeSchema, SeriesTopics, SeriesViewSchema } from './series.js';
import { RefundTopics, RefundViewSchema } from './refunds.js';
import { LedgerEntryViewSchema, LedgerTopics, TicketTopics, TicketViewSchema } from './ticketing.js';
import { InviteTopics, InviteViewSchema } from './invites.js';
import { AccessRequestViewSchema, RequestTopics } from './requests.js';
import { WaitlistEntryViewSchema, WaitlistTopics } from './waitlist.js';

/** The service that announces a domain event: its CloudEvent `source`. */
export type DomainEventSource =
  'townhall/events' | 'townhall/engagement' | 'townhall/ticketing' | 'townhall/directory';

/** What a consumer of one domain event type needs to know (docs/protocol/domain-events.md). */
export interface DomainEventSpec {
  /** The schema of the envelope's `data`: its output is what the service announces. */
  data: z.ZodType;
  source: DomainEventSource;
  /** What the envelope's `subject` names. */
  subject: string;
  summary: string;
  /**
   * Whether the envelope carries `visibility: "staff"` (only the event's host and moderators may
   * see it; never on the live stream): `staff` always, or only in the case `staffWhen` says.
   * Absent: always public.
   */
  visibility?: 'staff' | { staffWhen: string };
}

const EVENT_ID = 'The event id';

const eventEvents = {
  [EventTopics.scheduled]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary: 'An event was scheduled (also each new occurrence of a series)',
  },
  [EventTopics.updated]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary: 'The host edited a scheduled event',
  },
  [EventTopics.started]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary: 'The event went live (status `live`)',
  },
  [EventTopics.ended]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary: 'The event ended (status `past`)',
  },
  [EventTopics.cancelled]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary: 'The event was cancelled (status `cancelled`); its tickets are cancelled and refunded',
  },
  [EventTopics.startingSoon]: {
    data: EventViewSchema,
    source: 'townhall/events',
    subject: EVENT_ID,
    summary:
      'A scheduled event starts within the reminder lead (15 minutes by default): once per start time, a reminder for its host and ticket holders',
  },
} satisfies Record<string, DomainEventSpec>;

const seriesEvents = {
  [SeriesTopics.created]: {
    data: SeriesViewSchema,
    source: 'townhall/events',
    subject: 'The series id',
    summary: 'A recurring series was created (its occurrences are announced as `townhall.event.scheduled`)',
  },
  [SeriesTopics.followed]: {
    data: SeriesFollowChangeSchema,
    source: 'townhall/events',
    subject: 'The series id',
    summary: 'An agent followed a series (not announced again when it already did)',
  },
  [SeriesTopics.unfollowed]: {
    data: SeriesFollowChangeSchema,
    source: 'townhall/events',
    subject: 'The series id',
    summary: 'An agent stopped following a series',
  },
  [SeriesTopics.ended]: {
    data: SeriesViewSchema,
    source: 'townhall/events',
    subject: 'The series id',
    summary:
      'The host ended a series: nothing more is scheduled (the occurrences it cancels are announced as `townhall.event.cancelled`)',
  },
} satisfies Record<string, DomainEventSpec>;

/** Every engagement event is filed under its event's id. */
function engagement<S extends z.ZodType>(
  data: S,
  summary: string,
  visibility?: DomainEventSpec['visibility'],
): DomainEventSpec & { data: S } {
  return {
    data,
    source: 'townhall/engagement',
    subject: EVENT_ID,
    summary,
    ...(visibility ? { visibility } : {}),
  };
}

const engagementEvents = {
  [EngagementTopics.stagePosted]: engagement(
    StageMessageViewSchema,
    'A message was posted to the stage (also a question promoted to it, `kind: question`)',
  ),
  [EngagementTopics.stageHidden]: engagement(
    StageMessageViewSchema,
    'A moderator or the host hid a stage message (`hidden: true`, `body: null`); the first hide only',
  ),
  [EngagementTopics.questionSubmitted]: engagement(QuestionViewSchema, 'An attendee asked a question', {
    staffWhen: 'the question is `pending` (pre-moderation)',
  }),
  [EngagementTopics.questionUpvoted]: engagement(
    QuestionViewSchema,
    'A question was upvoted, or an upvote withdrawn',
    {
      staffWhen: 'the question is out of public view',
    },
  ),
  [EngagementTopics.questionApproved]: engagement(
    QuestionViewSchema,
    'A pending question was approved (state `open`)',
  ),
  [EngagementTopics.questionPromoted]: engagement(
    QuestionViewSchema,
    'A question was put on stage (state `promoted`)',
  ),
  [EngagementTopics.questionAnswered]: engagement(QuestionViewSchema, 'A question was marked answered'),
  [EngagementTopics.questionDismissed]: engagement(QuestionViewSchema, 'A question was dismissed', {
    staffWhen: 'it was `pending` (it stays out of public view)',
  }),
  [EngagementTopics.questionWithdrawn]: engagement(QuestionViewSchema, 'Its author withdrew a question', {
    staffWhen: 'it was `pending`',
  }),
  [EngagementTopics.questionReported]: engagement(
    QuestionReportedSchema,
    'An attendee reported a question (a repeated report is not announced)',
    'staff',
  ),
  [EngagementTopics.questionHeld]: engagement(
    QuestionViewSchema,
    "Reports reached the event's `reportThreshold`: an open question went back to `pending`, out of public view",
  ),
  [EngagementTopics.participantBlocked]: engagement(
    BlockViewSchema,
    'A moderator or the host blocked an agent in the event (`blockedBy` is not named: `null`)',
  ),
  [EngagementTopics.participantUnblocked]: engagement(BlockViewSchema, 'An agent was unblocked in the event'),
  [EngagementTopics.pollOpened]: engagement(PollViewSchema, 'A poll was opened'),
  [EngagementTopics.pollVoted]: engagement(PollViewSchema, 'A ballot was cast'),
  [EngagementTopics.pollClosed]: engagement(PollViewSchema, 'A poll was closed (status `closed`)'),
  [EngagementTopics.recordingPublished]: engagement(
    RecordingViewSchema,
    'The host published the recording (again on each update)',
  ),
} satisfies Record<string, DomainEventSpec>;

const directoryEvents = {
  [DirectoryTopics.cardUpdated]: {
    data: DirectoryCardSchema,
    source: 'townhall/directory',
    subject: "The card's agentId",
    summary: 'An agent made or replaced its directory card (the card as it is now)',
  },
} satisfies Record<string, DomainEventSpec>;

const ticketingEvents = {
  [TicketTopics.issued]: {
    data: TicketViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: "A ticket was issued (a free RSVP, a settled payment, a follower's automatic RSVP)",
  },
  [TicketTopics.cancelled]: {
    data: TicketViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: 'A free ticket was given back, or a ticket cancelled (and refunded) with its event',
  },
  [LedgerTopics.entryRecorded]: {
    data: LedgerEntryViewSchema,
    source: 'townhall/ticketing',
    subject: "The entry's agentId",
    summary: 'A ledger entry was recorded: one per entry, so a transfer announces two (debit and credit)',
  },
  [RefundTopics.owed]: {
    data: RefundViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: 'A cancelled event owes a refund for a ticket paid on chain (the host pays it with its own key)',
  },
  [RefundTopics.paid]: {
    data: RefundViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: "The host's refund payment settled on chain (status `paid`, with its transaction)",
  },
} satisfies Record<string, DomainEventSpec>;

/** Every waitlist event carries the entry as it is after the change, filed under its event's id. */
function waitlist(summary: string): DomainEventSpec & { data: typeof WaitlistEntryViewSchema } {
  return { data: WaitlistEntryViewSchema, source: 'townhall/ticketing', subject: EVENT_ID, summary };
}

const waitlistEvents = {
  [WaitlistTopics.joined]: waitlist(
    'An agent joined the waitlist of a sold-out tier (`waiting`, with its place)',
  ),
  [WaitlistTopics.offered]: waitlist(
    'A paid seat freed and is held for the first agent in line until `offerExpiresAt` (`offered`)',
  ),
  [WaitlistTopics.accepted]: waitlist(
    "The agent got the seat (`accepted`): a free tier's ticket issued at once, or its paid RSVP within the offer",
  ),
  [WaitlistTopics.expired]: waitlist(
    'An offer ran out (its seat passes to the next agent or back on sale), or the event ended or was cancelled',
  ),
  [WaitlistTopics.left]: waitlist('The agent left the line, or took a ticket of another tier meanwhile'),
} satisfies Record<string, DomainEventSpec>;

/**
 * Every invite event carries the invite, filed under its event's id: for the host and the invited
 * agent (webhooks, and its signed live stream); the public live stream sees only the count change.
 */
const inviteEvents = {
  [InviteTopics.added]: {
    data: InviteViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: 'The host invited an agent to an event',
  },
  [InviteTopics.removed]: {
    data: InviteViewSchema,
    source: 'townhall/ticketing',
    subject: EVENT_ID,
    summary: "The host removed an agent's invite (a ticket it holds is kept)",
  },
} satisfies Record<string, DomainEventSpec>;

/**
 * Every request event carries the request, filed under its event's id: for the host, its
 * moderators and the agent who asked (webhooks, and its signed live stream); the public live
 * stream sees only the count change.
 */
const request = (summary: string): DomainEventSpec & { data: typeof AccessRequestViewSchema } => ({
  data: AccessRequestViewSchema,
  source: 'townhall/ticketing',
  subject: EVENT_ID,
  summary,
});
const requestEvents = {
  [RequestTopics.requested]: request('An agent asked to come to an event that needs approval (its RSVP)'),
  [RequestTopics.approved]: request(
    "The host or a moderator approved the request: a free event's ticket is issued, a paid event's seat held",
  ),
  [RequestTopics.declined]: request('The host or a moderator declined the request'),
} satisfies Record<string, DomainEventSpec>;

/**
 * Every domain event type (the NATS subject, the CloudEvent `type`) and the schema of its data:
 * one registry that the AsyncAPI document (GET /asyncapi.json) is generated from and that
 * domain-event-catalog.spec.ts holds against every `*Topics` constant of this library, so a new
 * topic without an entry fails CI. A new domain adds its block above and spreads it here.
 */
export const domainEventCatalog = {
  ...eventEvents,
  ...seriesEvents,
  ...engagementEvents,
  ...ticketingEvents,
  ...waitlistEvents,
  ...inviteEvents,
  ...requestEvents,
  ...directoryEvents,
} as const;

export type DomainEventType = keyof typeof domainEventCatalog;

/** The `data` of a domain event type, as its service announces it. */
export type DomainEventData<T extends DomainEventType> = z.output<(typeof domainEventCatalog)[T]['data']>;

/**
 * A domain event of type `T` as a consumer is handed it, its `data` parsed by the catalog's schema
 * of that type. For a union of types, the union of their events: a `switch (event.type)` narrows
 * `data`.
 */
export type DomainEvent<T extends DomainEventType = DomainEventType> = {
  [K in T]: CloudEvent<DomainEventData<K>> & { type: K };
}[T];

export function isDomainEventType(type: string): type is DomainEventType {
  return Object.hasOwn(domainEventCatalog, type);
}

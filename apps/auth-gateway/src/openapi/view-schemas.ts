import {
  AgendaItemSchema,
  AgentIdSchema,
  EVENT_STATUSES,
  LEDGER_ENTRY_TYPES,
  PROBLEM_CODES,
  QUESTION_STATES,
  SeriesTemplateSchema,
  TicketingSchema,
  type BalanceView,
  type CloudEvent,
  type DirectoryCard,
  type EventView,
  type FieldError,
  type LedgerEntryView,
  type Page,
  type PollView,
  type ProblemCode,
  type QuestionView,
  type RecordingView,
  type SeriesView,
  type SettlementView,
  type StageMessageView,
  type TicketView,
} from '@townhall/contracts';
import type { LedgerPayload, PaymentRequiredBody, PaymentRequirements } from '@townhall/x402';
import { z } from 'zod';
import type { Problem } from '../problem/problem.js';

/*
 * The replies of the gateway as zod schemas, for the OpenAPI document only. The TypeScript
 * interfaces in @townhall/contracts stay the source of truth: `ReplySchemaChecks` below fails
 * to compile if a schema's output type and its interface differ in any field, so the two
 * cannot drift apart.
 */

/** Every schema here becomes `#/components/schemas/<id>`; references between them stay references. */
export const replySchemas = z.registry<{ id: string; description?: string }>();

function reply<S extends z.ZodType>(schema: S, id: string, description?: string): S {
  replySchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

const Instant = z.iso.datetime().describe('RFC 3339 UTC instant');
const Amount = z.string().regex(/^-?[0-9]+$/);

export const DirectoryCardSchema = reply(
  z.object({
    agentId: AgentIdSchema,
    handle: z.string().describe('Lower-case; shown as @handle'),
    displayName: z.string().nullable(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    links: z.array(z.object({ label: z.string(), url: z.string() })),
    createdAt: Instant,
    updatedAt: Instant,
  }),
  'DirectoryCard',
  "An agent's directory card",
);

export const EventViewSchema = reply(
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    agenda: z.array(AgendaItemSchema),
    startsAt: Instant,
    endsAt: Instant,
    timezone: z.string().describe('IANA time zone'),
    hostId: AgentIdSchema,
    moderators: z.array(z.string()),
    speakers: z.array(z.string()),
    capacity: z.number().int(),
    ticketing: TicketingSchema,
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
    createdAt: Instant,
    updatedAt: Instant,
    startedAt: Instant.nullable(),
    endedAt: Instant.nullable(),
    cancelledAt: Instant.nullable(),
  }),
  'Event',
  'An event: `scheduled -> live -> past`, or `scheduled -> cancelled`',
);

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
      .array(z.object({ eventId: z.string(), startsAt: Instant, status: z.enum(EVENT_STATUSES) }))
      .describe('The next occurrences that are scheduled or live (up to 10)'),
    createdAt: Instant,
    updatedAt: Instant,
  }),
  'Series',
  'A recurring series; its occurrences are ordinary events with `seriesId`',
);

export const TicketViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    tierId: z.string(),
    holderId: AgentIdSchema,
    status: z.enum(['pending', 'active', 'cancelled']),
    price: Amount.describe('Integer string of atomic units; "0" for free tickets'),
    asset: z.string().nullable(),
    createdAt: Instant,
    cancelledAt: Instant.nullable(),
  }),
  'Ticket',
);

export const LedgerEntryViewSchema = reply(
  z.object({
    id: z.string(),
    type: z.enum(LEDGER_ENTRY_TYPES),
    agentId: AgentIdSchema,
    amount: Amount.describe('Signed integer string of atomic units: negative is money out'),
    asset: z.string(),
    eventId: z.string().nullable(),
    ticketId: z.string().nullable(),
    counterpartyId: z.string().nullable(),
    createdAt: Instant,
  }),
  'LedgerEntry',
  'One immutable money movement; both sides of every transfer are recorded',
);

export const BalanceViewSchema = reply(
  z.object({
    agentId: AgentIdSchema,
    balances: z.array(z.object({ asset: z.string(), amount: Amount })),
  }),
  'Balance',
);

export const StageMessageViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    sequence: z.number().int().describe('Gap-free per event, from 1: read on with `?after=<sequence>`'),
    authorId: AgentIdSchema,
    body: z.string(),
    kind: z.enum(['message', 'question']).describe('`question`: a promoted question put on stage'),
    questionId: z.string().nullable(),
    createdAt: Instant,
  }),
  'StageMessage',
);

export const QuestionViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    authorId: AgentIdSchema,
    body: z.string(),
    upvotes: z.number().int(),
    state: z.enum(QUESTION_STATES),
    createdAt: Instant,
  }),
  'Question',
);

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
    closesAt: Instant.nullable(),
    ballots: z.number().int().nullable().describe('Ballots cast; null while the results are hidden'),
    createdAt: Instant,
    closedAt: Instant.nullable(),
  }),
  'Poll',
);

export const RecordingViewSchema = reply(
  z.object({
    eventId: z.string(),
    published: z.boolean(),
    publishedAt: Instant.nullable(),
    mediaUrl: z.string().nullable(),
    summary: z.string().nullable(),
    transcript: z.object({
      agenda: z.array(AgendaItemSchema),
      stage: z.array(StageMessageViewSchema),
      questions: z.array(QuestionViewSchema),
      polls: z.array(PollViewSchema),
      attendance: z.object({ ticketsIssued: z.number().int(), attendees: z.array(z.string()) }),
    }),
  }),
  'Recording',
  'What happened in an event, assembled when it ended',
);

/** `{ items, nextCursor }`: pass `nextCursor` back as `cursor` for the next page. */
function pageOf<S extends z.ZodType>(items: S, id: string) {
  return reply(
    z.object({
      items: z.array(items),
      nextCursor: z.string().nullable().describe('null on the last page'),
    }),
    `${id}Page`,
    `A page of ${id} items; pass \`nextCursor\` back as \`cursor\` for the next one`,
  );
}

export const EventPageSchema = pageOf(EventViewSchema, 'Event');
export const TicketPageSchema = pageOf(TicketViewSchema, 'Ticket');
export const LedgerEntryPageSchema = pageOf(LedgerEntryViewSchema, 'LedgerEntry');
export const StageMessagePageSchema = pageOf(StageMessageViewSchema, 'StageMessage');
export const QuestionPageSchema = pageOf(QuestionViewSchema, 'Question');
export const PollPageSchema = pageOf(PollViewSchema, 'Poll');

export const HealthSchema = reply(z.object({ status: z.literal('ok') }), 'Health');
export const ReadinessSchema = reply(
  z.object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.string()).describe('`ok`, or why the dependency is not ready'),
  }),
  'Readiness',
);

// ---- problem+json (docs/protocol/errors.md section 3) ----

const PROBLEM_CODE_LIST = Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]];

export const FieldErrorSchema = reply(
  z.object({
    field: z.string().describe('A dotted path into the body or query, or `(body)`'),
    message: z.string(),
  }),
  'FieldError',
);

export const ProblemSchema = reply(
  z.object({
    type: z.string().describe('`<server>/docs/errors/<code>`'),
    title: z.string().describe("The code's fixed title"),
    status: z.number().int(),
    detail: z.string().describe('What went wrong in this request, in words'),
    code: z.enum(PROBLEM_CODE_LIST).describe('Stable: switch on this'),
    requestId: z.string().describe('Also in the `x-request-id` header'),
    errors: z.array(FieldErrorSchema).optional().describe('Validation failures only: one entry per field'),
  }),
  'Problem',
);

// ---- x402 (docs/protocol/payments.md section 4) ----

export const PaymentRequirementsSchema = reply(
  z.object({
    scheme: z.literal('exact'),
    network: z.string().describe('`ledger:<environment>` on the built-in ledger'),
    maxAmountRequired: z.string().describe("Integer string of atomic units: exactly the tier's price"),
    asset: z.string(),
    payTo: z.string().describe("The host's agentId"),
    resource: z.string().describe('`<server>/events/<id>/rsvp?tier=<tierId>`: sign exactly this'),
    description: z.string(),
    mimeType: z.string(),
    maxTimeoutSeconds: z.number().int(),
    extra: z.object({ eventId: z.string(), tierId: z.string() }),
  }),
  'PaymentRequirements',
  'One way to pay for one tier (x402 v1 field names)',
);

export const PaymentRequiredSchema = reply(
  z.object({
    x402Version: z.literal(1),
    error: z
      .string()
      .describe(
        'Why no payment was accepted: `X-PAYMENT header is required`, or the x402 reason, e.g. `amount_mismatch`',
      ),
    accepts: z.array(PaymentRequirementsSchema).describe('One entry per tier that still has a seat'),
  }),
  'PaymentRequired',
  'The x402 v1 PaymentRequired members of a 402 problem',
);

export const LedgerPaymentSchema = reply(
  z.object({
    x402Version: z.literal(1),
    scheme: z.literal('exact'),
    network: z.string(),
    payload: z.object({
      signature: z
        .string()
        .describe(
          'base58 Ed25519 signature by `from` over these lines joined by LF: `x402-ledger-v1`, network, from, to, value, asset, resource, validAfter, validBefore, nonce',
        ),
      authorization: z.object({
        from: z.string().describe('The signed caller'),
        to: z.string().describe('`payTo`'),
        value: z.string().describe('`maxAmountRequired`'),
        asset: z.string(),
        resource: z.string(),
        validAfter: z.string().describe('Unix seconds'),
        validBefore: z.string().describe('Unix seconds'),
        nonce: z.string().describe('32 random bytes, lower-case hex; each works once'),
      }),
    }),
  }),
  'LedgerPayment',
  'The JSON that X-PAYMENT carries (standard base64) for the built-in ledger facilitator',
);

export const PaymentResponseSchema = reply(
  z.object({
    success: z.boolean(),
    transaction: z
      .string()
      .describe('The EVENT_TICKET ledger entry id (ledger) or the chain transaction (http)'),
    network: z.string(),
    payer: z.string(),
  }),
  'PaymentResponse',
  'The JSON that X-PAYMENT-RESPONSE and PAYMENT-RESPONSE carry (standard base64)',
);

// ---- live stream ----

export const CloudEventSchema = reply(
  z.object({
    specversion: z.literal('1.0'),
    id: z.string().describe('Unique per domain event'),
    source: z.string().describe('The owning service, e.g. `townhall/events`'),
    type: z.string().describe('Also the NATS subject, e.g. `townhall.stage.posted`'),
    time: Instant,
    subject: z.string().describe('The event id'),
    datacontenttype: z.literal('application/json'),
    data: z.unknown().describe('The resource after the change, e.g. the Event or the StageMessage'),
  }),
  'CloudEvent',
  'The `data:` of each live-stream message (CloudEvents 1.0 JSON; docs/protocol/domain-events.md section 5)',
);

/** Assignable both ways and with the same keys (an extra optional field would pass the first test). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Expect<T extends true> = T;

/** Fails to compile when a schema above no longer matches its contract type. */
export type ReplySchemaChecks = [
  Expect<Same<z.output<typeof DirectoryCardSchema>, DirectoryCard>>,
  Expect<Same<z.output<typeof EventViewSchema>, EventView>>,
  Expect<Same<z.output<typeof SeriesViewSchema>, SeriesView>>,
  Expect<Same<z.output<typeof TicketViewSchema>, TicketView>>,
  Expect<Same<z.output<typeof LedgerEntryViewSchema>, LedgerEntryView>>,
  Expect<Same<z.output<typeof BalanceViewSchema>, BalanceView>>,
  Expect<Same<z.output<typeof StageMessageViewSchema>, StageMessageView>>,
  Expect<Same<z.output<typeof QuestionViewSchema>, QuestionView>>,
  Expect<Same<z.output<typeof PollViewSchema>, PollView>>,
  Expect<Same<z.output<typeof RecordingViewSchema>, RecordingView>>,
  Expect<Same<z.output<typeof EventPageSchema>, Page<EventView>>>,
  Expect<Same<z.output<typeof TicketPageSchema>, Page<TicketView>>>,
  Expect<Same<z.output<typeof LedgerEntryPageSchema>, Page<LedgerEntryView>>>,
  Expect<Same<z.output<typeof StageMessagePageSchema>, Page<StageMessageView>>>,
  Expect<Same<z.output<typeof QuestionPageSchema>, Page<QuestionView>>>,
  Expect<Same<z.output<typeof PollPageSchema>, Page<PollView>>>,
  Expect<Same<z.output<typeof FieldErrorSchema>, FieldError>>,
  Expect<Same<z.output<typeof ProblemSchema>, Problem>>,
  Expect<Same<z.output<typeof PaymentRequirementsSchema>, PaymentRequirements>>,
  Expect<Same<z.output<typeof PaymentRequiredSchema>, PaymentRequiredBody>>,
  Expect<Same<z.output<typeof LedgerPaymentSchema>['payload'], LedgerPayload>>,
  Expect<Same<z.output<typeof PaymentResponseSchema>, SettlementView>>,
  Expect<Same<z.output<typeof CloudEventSchema>, CloudEvent>>,
];

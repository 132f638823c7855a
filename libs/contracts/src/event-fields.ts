import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { AgentList, MAX_MINUTES } from './event-limits.js';
import { InstantSchema, TimeZoneSchema } from './time.js';

// An event's fields as its host gives them (docs/product.md "Event lifecycle"), each validated on
// its own, and the ids and path parameters that name an event and what is in it.

/** Free and single-price events sell from one implicit tier with this id. */
export const GENERAL_TIER = 'general';
export const DEFAULT_ASSET = 'USDC';

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

import { z } from 'zod';
import { contract } from './contract.js';
import { EventIdSchema, EventPath, PriceSchema } from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { AmountReply, InstantReply, pageOf, reply } from './replies.js';
import { InstantSchema } from './time.js';

/**
 * A code as the host writes it and an agent types it: 3 to 32 letters, digits, `_` and `-`.
 * Codes are case-insensitive: `SPRING25` and `spring25` are one code of the event.
 */
export const CodeSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/,
    'must be 3 to 32 letters, digits, _ and -, starting with a letter or digit',
  );

const TierIds = z
  .array(z.string().min(1).max(32))
  .min(1)
  .max(10)
  .transform((ids) => [...new Set(ids)]);

/**
 * A host's code for an event (docs/product.md "Codes"), owned by ticketing next to the prices it
 * changes: a discount (`percentOff`, `amountOff` in atomic units, or `free`), the tiers it applies
 * to (`tierIds`, else every tier it may buy), the hidden tiers it unlocks, how many tickets may
 * carry it (`maxUses`) and until when (`expiresAt`). A use is counted when its ticket is issued.
 * At most one discount; a code without one unlocks hidden tiers (ticketing checks both, with the
 * event's tiers: a refinement here would keep the route from taking the path's fields out).
 */
export const CreateCodeSchema = z.strictObject({
  eventId: EventIdSchema,
  code: CodeSchema,
  percentOff: z.number().int().min(1).max(100).optional(),
  amountOff: PriceSchema.optional(),
  free: z.literal(true).optional(),
  maxUses: z.number().int().min(1).max(1_000_000).optional(),
  tierIds: TierIds.optional(),
  unlocksTierIds: TierIds.optional(),
  expiresAt: InstantSchema.optional(),
});
export type CreateCode = z.output<typeof CreateCodeSchema>;

export const CodeViewSchema = reply(
  z.object({
    eventId: z.string(),
    code: z.string().describe('As the host wrote it; matched without regard to case'),
    percentOff: z.number().int().nullable(),
    amountOff: AmountReply.nullable().describe('Atomic units off the tier price'),
    free: z.boolean(),
    maxUses: z.number().int().nullable().describe('How many tickets may carry it; null: no limit'),
    uses: z.number().int().describe('How many tickets carry it'),
    tierIds: z.array(z.string()).nullable().describe('The tiers it applies to; null: every tier it may buy'),
    unlocksTierIds: z.array(z.string()).describe('The hidden tiers it lets an RSVP buy'),
    expiresAt: InstantReply.nullable(),
    createdAt: InstantReply,
  }),
  'Code',
  "A host's discount or access code for an event",
);
export type CodeView = z.output<typeof CodeViewSchema>;
export const CodePageSchema = pageOf(CodeViewSchema, 'Code');

export const CodeListSchema = PagingSchema.extend({ eventId: EventIdSchema }).strict();
export const RemoveCodeSchema = z.strictObject({ eventId: EventIdSchema, code: CodeSchema });

export const Codes = {
  create: contract<CodeView>()('ticketing.codes.create', CreateCodeSchema),
  list: contract<Page<CodeView>>()('ticketing.codes.list', CodeListSchema),
  remove: contract<CodeView>()('ticketing.codes.remove', RemoveCodeSchema),
} as const;

const CodePath = EventPath.extend({ code: CodeSchema.describe('The code (any case)') });

/** Codes (docs/product.md "Codes"); owned by ticketing. The host only. */
export const CodeRoutes = routeGroup('Codes', {
  create: httpRoute({
    contract: Codes.create,
    method: 'POST',
    path: '/events/:id/codes',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'body',
    signed: true,
    summary: 'Create a code',
    description:
      'The host. `{ code, percentOff | amountOff | free: true, maxUses?, tierIds?, unlocksTierIds?, expiresAt? }`: a discount, the hidden tiers it unlocks, or both. An RSVP that sends it (`code`) is offered the discounted price in its 402; a price brought to 0 is a ticket at once. Codes are case-insensitive and unique per event (409 `code.taken`).',
    reply: CodeViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'code.taken'],
  }),
  list: httpRoute({
    contract: Codes.list,
    method: 'GET',
    path: '/events/:id/codes',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: "The event's codes",
    description: 'The host only; oldest first, each with its `uses`.',
    reply: CodePageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  remove: httpRoute({
    contract: Codes.remove,
    method: 'DELETE',
    path: '/events/:id/codes/:code',
    fields: { id: 'eventId' },
    params: CodePath,
    rest: 'none',
    signed: true,
    summary: 'Remove a code',
    description: 'The host only. Tickets that carry it keep it; no RSVP can use it any more.',
    reply: CodeViewSchema,
    codes: ['event.not_found', 'role.forbidden', 'code.not_found'],
  }),
});

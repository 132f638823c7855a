import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema, EventPath } from './event-fields.js';
import { httpRoute, routeGroup } from './http.js';
import { PagingSchema, type Page } from './page.js';
import { AmountReply, InstantReply, pageOf, reply } from './replies.js';

export const REFUND_STATUSES = ['owed', 'paying', 'paid'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * What the host's refund payment must be, in x402 v2 form (an `exact` transfer on the refund's
 * network): to the holder, the ticket's price, the memo that binds it to this refund, and the fee
 * payer of the service's facilitator. The official x402 client signs it as is.
 */
export const RefundPaymentSchema = z
  .object({
    scheme: z.literal('exact'),
    network: z.string(),
    amount: z.string(),
    asset: z.string(),
    payTo: AgentIdSchema,
    maxTimeoutSeconds: z.number().int(),
    extra: z.object({
      eventId: z.string(),
      tierId: z.string(),
      feePayer: z.string().describe("The facilitator's key that pays the transaction fee"),
      memo: z.string().describe('`townhall:refund:<refundId>`: binds the transfer to this refund'),
      resource: z.string(),
    }),
  })
  .describe('An x402 v2 PaymentRequirements for the refund (exact on Solana)');

export const RefundViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    ticketId: z.string(),
    holderId: AgentIdSchema,
    hostId: AgentIdSchema,
    amount: AmountReply.describe('The ticket price, in atomic units of `asset`'),
    asset: z.string().describe('The SPL mint the ticket was paid in'),
    network: z.string().describe('The chain network (CAIP-2) the ticket was paid on, and is refunded on'),
    status: z
      .enum(REFUND_STATUSES)
      .describe("`owed`; `paying` while the host's payment settles; `paid` once it has"),
    transaction: z.string().nullable().describe('The chain transaction that paid it'),
    payment: RefundPaymentSchema.nullable().describe(
      'What to pay, for the host while the refund is owed (null for the holder, and once paid)',
    ),
    createdAt: InstantReply,
    paidAt: InstantReply.nullable(),
  }),
  'Refund',
  'A refund owed for a ticket paid on chain, of an event its host cancelled; the host pays it with its own key',
);
export type RefundView = z.output<typeof RefundViewSchema>;
export const RefundPageSchema = pageOf(RefundViewSchema, 'Refund');

/** The x402 settlement answer of a refund payment (the PAYMENT-RESPONSE header). */
export interface RefundPaymentReply {
  refund: RefundView;
  /** Set when this call's payment settled; null while it is still settling, or for a refund paid already by it. */
  settlement: { success: boolean; transaction: string; network: string; payer: string } | null;
}

export const RefundPaySchema = z.strictObject({
  eventId: EventIdSchema,
  refundId: z.string().min(1).max(100),
  /** The PAYMENT-SIGNATURE (v2) or X-PAYMENT header value, as sent. */
  payment: z.string().max(16_384),
});

export const Refunds = {
  /** The host sees every refund of its event; an agent its own. */
  list: contract<Page<RefundView>>()(
    'ticketing.refunds.list',
    PagingSchema.extend({ eventId: EventIdSchema }).strict(),
  ),
  pay: contract<RefundPaymentReply>()('ticketing.refunds.pay', RefundPaySchema),
} as const;

export const RefundTopics = {
  owed: 'townhall.refund.owed',
  paid: 'townhall.refund.paid',
} as const;

export const RefundRoutes = routeGroup('Refunds', {
  list: httpRoute({
    contract: Refunds.list,
    method: 'GET',
    path: '/events/:id/refunds',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'Refunds owed for tickets paid on chain, of a cancelled event',
    description:
      'The host sees every refund of its event, each owed one with the `payment` to sign; a ticket holder sees its own.',
    reply: RefundPageSchema,
    codes: ['validation.failed', 'event.not_found'],
  }),
});

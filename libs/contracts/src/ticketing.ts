import { z } from 'zod';
import type { AccessRequestView } from './requests.js';
import { CodeSchema } from './codes.js';
import { AssetSchema, CapacitySchema, EventIdSchema, EventPath, TicketingSchema } from './event-fields.js';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { httpRoute, routeGroup } from './http.js';
import { AmountReply, InstantReply, pageOf, reply } from './replies.js';
import { PagingSchema, type Page } from './page.js';

/**
 * An x402 `offer-receipt` receipt in its JWS form (docs/protocol/payments.md "The receipt"): the
 * service's signature over the resource, the payer, the amount, the network and the transaction.
 */
export const SignedReceiptSchema = z
  .object({
    format: z.literal('jws'),
    signature: z
      .string()
      .describe('JWS compact serialization (EdDSA); its `kid` names a key of `GET /.well-known/jwks.json`'),
  })
  .describe('The signed receipt of the payment (x402 `offer-receipt`, JWS)');
export type SignedReceiptView = z.output<typeof SignedReceiptSchema>;

export const TicketViewSchema = reply(
  z.object({
    id: z.string(),
    eventId: z.string(),
    tierId: z.string(),
    holderId: AgentIdSchema,
    status: z.enum(['pending', 'active', 'cancelled']),
    price: AmountReply.describe('Integer string of atomic units; "0" for free tickets'),
    asset: z.string().nullable(),
    network: z
      .string()
      .nullable()
      .describe('The chain network (CAIP-2) of an on-chain payment; null for free and ledger tickets'),
    transaction: z
      .string()
      .nullable()
      .describe('The chain transaction that paid the ticket, once settled; null for free and ledger tickets'),
    code: z
      .string()
      .nullable()
      .describe(
        'The host\'s code the ticket was bought with (docs/product.md "Codes"); `price` is what it cost',
      ),
    createdAt: InstantReply,
    cancelledAt: InstantReply.nullable(),
    receipt: SignedReceiptSchema.optional().describe(
      'A paid ticket once its payment settled: the receipt the service signed when it issued it',
    ),
  }),
  'Ticket',
);
export type TicketView = z.output<typeof TicketViewSchema>;
export type TicketStatus = TicketView['status'];
export const TicketPageSchema = pageOf(TicketViewSchema, 'Ticket');

export const LEDGER_ENTRY_TYPES = ['EVENT_TICKET', 'EVENT_TICKET_REFUND', 'FAUCET'] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

export const LedgerEntryViewSchema = reply(
  z.object({
    id: z.string(),
    type: z.enum(LEDGER_ENTRY_TYPES),
    agentId: AgentIdSchema,
    amount: AmountReply.describe('Signed integer string of atomic units: negative is money out'),
    asset: z.string(),
    eventId: z.string().nullable(),
    ticketId: z.string().nullable(),
    counterpartyId: z.string().nullable(),
    network: z
      .string()
      .nullable()
      .describe('The chain network (CAIP-2) the money moved on; null when it moved on the ledger'),
    transaction: z.string().nullable().describe('The chain transaction that moved it; null on the ledger'),
    code: z.string().nullable().describe("A ticket's payment: the host's code it was bought with, if any"),
    createdAt: InstantReply,
  }),
  'LedgerEntry',
  'One immutable money movement; both sides of every transfer are recorded',
);
export type LedgerEntryView = z.output<typeof LedgerEntryViewSchema>;
export const LedgerEntryPageSchema = pageOf(LedgerEntryViewSchema, 'LedgerEntry');

export const BalanceViewSchema = reply(
  z.object({
    agentId: AgentIdSchema,
    balances: z.array(z.object({ asset: z.string(), amount: AmountReply })),
  }),
  'Balance',
);
export type BalanceView = z.output<typeof BalanceViewSchema>;

/** The x402 settlement answer, for the X-PAYMENT-RESPONSE header. */
export interface SettlementView {
  success: boolean;
  transaction: string;
  network: string;
  payer: string;
}

/** One public key receipts are signed with: an Ed25519 JWK (RFC 8037). */
export const ReceiptKeySchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().describe('The raw 32-byte public key, base64url'),
  kid: z.string().describe('The `kid` of the receipts it verifies'),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

export const ReceiptKeySetSchema = reply(
  z.object({
    keys: z
      .array(ReceiptKeySchema)
      .describe(
        'The current key first, then the older ones still published (receipts they signed still verify)',
      ),
  }),
  'ReceiptKeySet',
  'The JWK set (RFC 7517) the service signs x402 offers and receipts with',
);
export type ReceiptKeySet = z.output<typeof ReceiptKeySetSchema>;

/** A ticket an RSVP answers with. */
export interface TicketReply {
  ticket: TicketView;
  /** false when the caller already held a ticket: nothing was charged. */
  created: boolean;
  settlement: SettlementView | null;
  /**
   * The x402 v2 extensions of the settlement answer (PAYMENT-RESPONSE `extensions`): the
   * `offer-receipt` receipt of a paid ticket (docs/protocol/payments.md "The receipt").
   */
  paymentExtensions?: Record<string, unknown>;
}

/** An RSVP to an event that needs approval, by an agent not approved yet: its request (202). */
export interface RequestReply {
  request: AccessRequestView;
}

export type RsvpReply = TicketReply | RequestReply;

export const RsvpSchema = z.strictObject({
  eventId: EventIdSchema,
  tierId: z.string().min(1).max(32).optional(),
  /** A host's code (docs/product.md "Codes"): its discount, and the hidden tiers it unlocks. */
  code: CodeSchema.optional(),
  /** The X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2) header value, as sent. */
  payment: z.string().max(16_384).optional(),
});

export const FaucetSchema = z.strictObject({
  amount: z
    .string()
    .regex(/^[1-9][0-9]{0,20}$/, 'must be a positive integer string of atomic units (at most 21 digits)'),
  asset: AssetSchema.optional(),
  /**
   * Omitted: the ledger. The network of a local chain (X402_FACILITATOR=solana-local): test USDC
   * minted to the caller's own token account on it, which is created if needed.
   */
  network: z
    .string()
    .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 network id')
    .optional(),
});

const EventRef = z.strictObject({ eventId: EventIdSchema });

export const Tickets = {
  rsvp: contract<RsvpReply>()('ticketing.rsvp', RsvpSchema),
  /** The holder gives back a free ticket (DELETE /events/{id}/rsvp). */
  release: contract<TicketView>()('ticketing.release', EventRef),
  /** The caller's live ticket for one event (GET /events/{id}/rsvp). */
  held: contract<TicketView>()('ticketing.tickets.held', EventRef),
  mine: contract<Page<TicketView>>()('ticketing.tickets.mine', PagingSchema.strict()),
  attendees: contract<Page<TicketView>>()(
    'ticketing.tickets.attendees',
    PagingSchema.extend(EventRef.shape).strict(),
  ),
  /** The public keys of x402 offers and receipts (GET /.well-known/jwks.json). */
  receiptKeys: contract<ReceiptKeySet>()('ticketing.receipts.keys', z.strictObject({})),
} as const;

/**
 * The events service asks before it records a new capacity or ticketing (tiers): ticketing
 * decides next to the seats, in the same locks as a purchase, and refuses 409
 * `event.capacity_below_sold` if a tier or the total would hold fewer seats than it has sold.
 */
export const CapacityChangeSchema = z.strictObject({
  eventId: EventIdSchema,
  /** The event version the change will be recorded as: an older one never overwrites a newer. */
  version: z.number().int().min(1),
  capacity: CapacitySchema,
  ticketing: TicketingSchema,
});

export interface CapacityChangeReply {
  eventId: string;
  /** false when a newer version was decided already: re-read the event and try again. */
  applied: boolean;
}

export const Inventory = {
  changeCapacity: contract<CapacityChangeReply>()(
    'ticketing.inventory.change_capacity',
    CapacityChangeSchema,
  ),
} as const;

export const Ledger = {
  entries: contract<Page<LedgerEntryView>>()('ticketing.ledger.entries', PagingSchema.strict()),
  balance: contract<BalanceView>()('ticketing.ledger.balance', z.strictObject({})),
  faucet: contract<LedgerEntryView>()('ticketing.ledger.faucet', FaucetSchema),
} as const;

export const TicketTopics = {
  issued: 'townhall.ticket.issued',
  cancelled: 'townhall.ticket.cancelled',
} as const;

export const LedgerTopics = {
  entryRecorded: 'townhall.ledger.entry_recorded',
} as const;

/** The caller's own ledger (owned by ticketing). */
export const LedgerRoutes = routeGroup('Ledger', {
  entries: httpRoute({
    contract: Ledger.entries,
    method: 'GET',
    path: '/ledger',
    rest: 'query',
    signed: true,
    summary: "The caller's ledger entries",
    description: '`EVENT_TICKET`, `EVENT_TICKET_REFUND` and `FAUCET`; amounts are signed integer strings.',
    reply: LedgerEntryPageSchema,
    codes: [],
  }),
  balance: httpRoute({
    contract: Ledger.balance,
    method: 'GET',
    path: '/ledger/balance',
    rest: 'none',
    signed: true,
    summary: "The caller's balances, per asset",
    reply: BalanceViewSchema,
    codes: [],
  }),
  /** Only where LEDGER_FAUCET=true (standalone, tests); 404 ledger.faucet_disabled elsewhere. */
  faucet: httpRoute({
    contract: Ledger.faucet,
    method: 'POST',
    path: '/ledger/faucet',
    rest: 'body',
    signed: true,
    summary: "Credit the caller's balance (test environments only)",
    description:
      'Exists only where `LEDGER_FAUCET=true` (never in production). One call mints at most `LEDGER_FAUCET_MAX_AMOUNT` (1,000,000 by default), and one agent may call it `LEDGER_FAUCET_CALLS_PER_HOUR` times an hour (10 by default).',
    reply: LedgerEntryViewSchema,
    codes: ['ledger.faucet_disabled', 'ledger.faucet_over_cap', 'ledger.faucet_rate_limited'],
  }),
});

/** Tickets' plain routes (the RSVP, with its x402 payment and 201/200, is an explicit route). */
export const TicketRoutes = routeGroup('Tickets', {
  /** Whether the caller holds a ticket for the event, and which: 404 ticket.not_found if not. */
  held: httpRoute({
    contract: Tickets.held,
    method: 'GET',
    path: '/events/:id/rsvp',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'none',
    signed: true,
    summary: "The caller's ticket for this event",
    description: 'The live ticket the caller holds (free or paid); 404 `ticket.not_found` if none.',
    reply: TicketViewSchema,
    codes: ['validation.failed', 'ticket.not_found'],
  }),
  /** The holder gives back a free ticket. */
  release: httpRoute({
    contract: Tickets.release,
    method: 'DELETE',
    path: '/events/:id/rsvp',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'none',
    signed: true,
    summary: 'Give back a free ticket',
    description: 'Paid tickets are refunded only when the event is cancelled.',
    reply: TicketViewSchema,
    codes: ['event.not_found', 'ticket.not_found', 'ticket.not_cancellable'],
  }),
  /** The attendee list: host and moderators. */
  attendees: httpRoute({
    contract: Tickets.attendees,
    method: 'GET',
    path: '/events/:id/rsvps',
    fields: { id: 'eventId' },
    params: EventPath,
    rest: 'query',
    signed: true,
    summary: 'The attendee list',
    description: 'The host and moderators only.',
    reply: TicketPageSchema,
    codes: ['event.not_found', 'role.forbidden'],
  }),
  mine: httpRoute({
    contract: Tickets.mine,
    method: 'GET',
    path: '/me/tickets',
    rest: 'query',
    signed: true,
    summary: "The caller's tickets",
    reply: TicketPageSchema,
    codes: [],
  }),
});

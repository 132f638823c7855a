import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  DomainError,
  TicketViewSchema,
  type SettlementView,
  type SignedReceiptView,
  type TicketReply,
  type TicketView,
} from '@townhall/contracts';
import {
  encodePaymentRequiredHeader,
  paymentRequiredBody,
  toPaymentRequiredV2,
  type PaymentRequirements,
} from '@townhall/x402';
import {
  BAZAAR_KEY,
  bazaarExtension,
  loadOfferReceipts,
  OFFER_RECEIPT_KEY,
  offerExtension,
  PAYMENT_IDENTIFIER,
  paymentIdentifierDeclaration,
  receiptExtension,
  signReceipt,
  type ReceiptClaims,
} from '@townhall/x402/extensions';
import { z } from 'zod';
import { RECEIPT_KEYS, type ReceiptKeys } from '../tokens.js';
import { soldOut } from '../tickets/sale-refusals.js';
import type { PaymentRefused } from '../tickets/purchase.js';

/**
 * The most a 402's PAYMENT-REQUIRED header may hold with its extensions (12 KiB of base64). HTTP
 * clients refuse headers past 16 KiB (Node's own limit), and the official client echoes every
 * extension into the payment, whose header is at most 16,384 characters: a 402 larger with them
 * (many tiers at a long origin) leaves out its offers, then its bazaar description. Either is
 * optional to x402; payment-identifier and the receipt stay.
 */
export const PAYMENT_REQUIRED_BUDGET = 12_288;

/**
 * Left out of the bazaar's schema: prose, regular expressions and formats (a facilitator's Ajv
 * knows no `date-time` without ajv-formats, and warns on each), and `$schema` inside another schema.
 */
const DROPPED = new Set(['description', 'pattern', 'format', '$schema']);

/** The ticket as a JSON Schema for the bazaar's `output`: its shape, without the prose and patterns. */
const TICKET_SHAPE = compact(z.toJSONSchema(TicketViewSchema, { io: 'output' })) as Record<string, unknown>;

/**
 * x402's official extensions on paid RSVPs (docs/protocol/payments.md "Extensions"), on every 402
 * of a paid RSVP and every ticket a payment issued:
 * - `payment-identifier`: declared (optional), so the official client adds the id it retries with
 *   (PaymentIds keeps them);
 * - `offer-receipt`: each accept signed as an offer by the service's key, and each ticket a payment
 *   issued given a receipt, signed once and answered ever after;
 * - `bazaar`: the RSVP described (its tier and body, its ticket) for a facilitator's discovery.
 */
@Injectable()
export class PaymentExtensions implements OnModuleInit {
  constructor(@Inject(RECEIPT_KEYS) private readonly keys: ReceiptKeys) {}

  /** The offer-receipt package loaded before the first 402, not during a burst of them. */
  async onModuleInit(): Promise<void> {
    await loadOfferReceipts();
  }

  /**
   * The 402 of a paid RSVP, which lets the client pay (again): its body also carries the x402 v1
   * fields, and the v2 extensions the gateway puts in PAYMENT-REQUIRED (`x402Extensions`). With no
   * tier left to buy there is no way to pay: that is 409 `capacity.sold_out`, whatever was sent.
   */
  async paymentRequired(
    code: 'payment.required' | PaymentRefused['refused'],
    detail: string,
    reason: string,
    accepts: PaymentRequirements[],
    eventId: string,
  ): Promise<DomainError> {
    if (accepts.length === 0) return soldOut();
    const body = paymentRequiredBody(reason, accepts);
    const required = toPaymentRequiredV2(body);
    const offers = await offerExtension(this.keys.signer, required, (accept) =>
      String(accept.extra?.['resource'] ?? required.resource.url),
    );
    const extensions: Record<string, unknown> = {
      [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration(),
      ...(offers === undefined ? {} : { [OFFER_RECEIPT_KEY]: offers }),
      [BAZAAR_KEY]: rsvpDiscovery(eventId, accepts),
    };
    // Within the budget: the signed offers (the largest part) go first, then the description.
    for (const key of [OFFER_RECEIPT_KEY, BAZAAR_KEY]) {
      if (encodePaymentRequiredHeader(body, undefined, extensions).length <= PAYMENT_REQUIRED_BUDGET) break;
      delete extensions[key];
    }
    return new DomainError(code, detail, undefined, { x402: body, x402Extensions: extensions });
  }

  /** The receipt of a ticket a payment is issuing, signed now with the service's current key. */
  receipt(claims: ReceiptClaims): Promise<SignedReceiptView> {
    return signReceipt(this.keys.signer, claims);
  }

  /**
   * What an answer with a paid ticket says of its payment (PAYMENT-RESPONSE): `settled`, and the
   * ticket's receipt as the `offer-receipt` extension when it has one. Without `settled`, the
   * settlement its receipt names (the same payment answered again), or none.
   */
  async paid(
    ticket: TicketView,
    settled?: SettlementView,
  ): Promise<Pick<TicketReply, 'settlement' | 'paymentExtensions'>> {
    const claims = ticket.receipt ? claimsOf(ticket.receipt) : undefined;
    const settlement = settled ?? (claims ? { success: true, ...pick(claims) } : null);
    if (!settlement || !ticket.receipt || !claims) return { settlement };
    const extension = await receiptExtension(ticket.receipt, {
      resourceUrl: claims.resourceUrl,
      payer: settlement.payer,
      network: settlement.network,
      transaction: settlement.transaction,
    });
    return extension === undefined
      ? { settlement }
      : { settlement, paymentExtensions: { [OFFER_RECEIPT_KEY]: extension } };
  }
}

interface NamedInReceipt {
  resourceUrl: string;
  payer: string;
  network: string;
  transaction: string;
}

function pick({ payer, network, transaction }: NamedInReceipt) {
  return { payer, network, transaction };
}

/** What a receipt of ours names (its JWS payload, read without verifying: we signed it). */
function claimsOf(receipt: SignedReceiptView): NamedInReceipt | undefined {
  const payload = receipt.signature.split('.')[1];
  if (payload === undefined) return undefined;
  const json = new TextDecoder().decode(Uint8Array.from(Buffer.from(payload, 'base64url')));
  const claims = JSON.parse(json) as Partial<Record<keyof NamedInReceipt, unknown>>;
  const { resourceUrl, payer, network, transaction } = claims;
  return typeof resourceUrl === 'string' &&
    typeof payer === 'string' &&
    typeof network === 'string' &&
    typeof transaction === 'string'
    ? { resourceUrl, payer, network, transaction }
    : undefined;
}

/**
 * The `bazaar` description of `POST /events/{id}/rsvp`: its input, the body naming a tier of
 * those offered (and a host's code), and its output, the ticket.
 */
function rsvpDiscovery(eventId: string, accepts: PaymentRequirements[]) {
  const [first] = accepts;
  const tierIds = accepts.map((accept) => accept.extra.tierId);
  return bazaarExtension({
    method: 'POST',
    routePattern: '/events/:id/rsvp',
    path: `/events/${eventId}/rsvp`,
    body: { tierId: first!.extra.tierId },
    bodySchema: {
      type: 'object',
      properties: {
        tierId: { type: 'string', enum: tierIds },
        code: { type: 'string' },
      },
      additionalProperties: false,
    },
    output: {
      id: '00000000-0000-4000-8000-000000000000',
      eventId,
      tierId: first!.extra.tierId,
      holderId: first!.payTo,
      status: 'active',
      price: first!.maxAmountRequired,
      asset: first!.asset,
      network: null,
      transaction: null,
      code: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      cancelledAt: null,
    },
    outputSchema: TICKET_SHAPE,
  });
}

/** A JSON Schema without what DROPPED names. */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !DROPPED.has(key))
      .map(([key, value]) => [key, compact(value)]),
  );
}

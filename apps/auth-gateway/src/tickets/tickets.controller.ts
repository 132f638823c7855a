import { Body, Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import {
  AccessRequestViewSchema,
  DomainError,
  parseOrThrow,
  Refunds,
  RefundViewSchema,
  Tickets,
  type AccessRequestView,
  type RefundView,
  type TicketView,
  TicketViewSchema,
  EventPath,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import { encodePaymentResponse } from '@townhall/x402';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';
import {
  PAYMENT_HEADER_DESCRIPTION,
  PAYMENT_SIGNATURE_HEADER_DESCRIPTION,
  REFUND_PAY_DESCRIPTION,
  RSVP_DESCRIPTION,
} from './payment-descriptions.js';

/** The body of an RSVP carries at most the tier and a code. */
const RsvpBodySchema = Tickets.rsvp.request.pick({ tierId: true, code: true }).strict();

/**
 * Only the payment header's value travels on: X-PAYMENT (x402 v1) or PAYMENT-SIGNATURE (v2).
 * Both at once must carry the same payment; two different ones are refused, not one picked.
 */
function paymentHeader(request: FastifyRequest): string | undefined {
  const v1 = request.headers['x-payment'];
  const v2 = request.headers['payment-signature'];
  if (Array.isArray(v1) || Array.isArray(v2) || (v1 !== undefined && v2 !== undefined && v1 !== v2))
    throw new DomainError('validation.failed', 'Send one payment: X-PAYMENT or PAYMENT-SIGNATURE', [
      { field: 'X-PAYMENT', message: 'conflicts with PAYMENT-SIGNATURE (or is repeated): send one payment' },
    ]);
  return v1 ?? v2;
}

/** What an RSVP answers with: a ticket, or the request of an agent an event that needs approval has not approved. */
const RsvpAnswerSchema = z.union([TicketViewSchema, AccessRequestViewSchema]);

/** RSVP, tickets and attendee lists (docs/product.md "Tickets, payments, ledger"); owned by ticketing. */
@Controller()
export class TicketsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /**
   * Free: a ticket at once. Paid: 402 with the x402 requirements, then again with X-PAYMENT
   * (v1) or PAYMENT-SIGNATURE (v2). 201 for a new ticket, 200 with the one already held. An
   * event that needs approval answers an agent not approved yet with its request (202).
   */
  @Route({
    method: 'POST',
    path: '/events/:id/rsvp',
    tag: 'Tickets',
    signed: true,
    summary: 'RSVP: get a ticket (paid events: with an x402 payment)',
    description: RSVP_DESCRIPTION,
    params: EventPath,
    query: z.object({
      tier: Tickets.rsvp.request.shape.tierId.describe('The tier, if not named in the body'),
      code: Tickets.rsvp.request.shape.code.describe("The host's code, if not named in the body"),
    }),
    headers: z.object({
      'X-PAYMENT': Tickets.rsvp.request.shape.payment.describe(PAYMENT_HEADER_DESCRIPTION),
      'PAYMENT-SIGNATURE': Tickets.rsvp.request.shape.payment.describe(PAYMENT_SIGNATURE_HEADER_DESCRIPTION),
    }),
    body: RsvpBodySchema,
    reply: RsvpAnswerSchema,
    statusReplies: { 201: TicketViewSchema, 200: TicketViewSchema },
    statuses: {
      201: 'A new ticket; a paid one comes with X-PAYMENT-RESPONSE',
      200: 'The ticket you already hold (active, or pending while an earlier payment settles): nothing was charged',
      202: "A pending ticket: the payment facilitator has not yet said whether the payment settled. The seat is held; follow the ticket at Location (GET /events/{id}/rsvp) until it is active or cancelled. Or, for an event whose `access` is `approval` and an agent not approved yet, its request (`AccessRequest`, `requested` or `approved`): nothing was charged. Once approved, RSVP again: a free event's ticket is yours already (200), a paid event's seat is held for you until `holdExpiresAt` (402, then pay)",
    },
    x402: true,
    codes: [
      'event.not_found',
      'ticket.not_on_sale',
      'access.not_invited',
      'access.declined',
      'capacity.sold_out',
      'code.not_found',
      'code.expired',
      'code.exhausted',
      'code.not_for_tier',
      'payment.required',
      'payment.invalid',
      'payment.insufficient_funds',
      'payment.nonce_reused',
      'payment.id_reused',
      'payment.settlement_failed',
    ],
  })
  async rsvp(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Query('tier') tier: string | undefined,
    @Query('code') codeQuery: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TicketView | AccessRequestView> {
    const parsed = parseOrThrow(RsvpBodySchema, body ?? {});
    const tierId = parsed.tierId ?? tier;
    const code = parsed.code ?? codeQuery;
    const payment = paymentHeader(request);
    const result = await this.services.send(
      Tickets.rsvp,
      {
        eventId,
        ...(tierId === undefined ? {} : { tierId }),
        ...(code === undefined ? {} : { code }),
        ...(payment === undefined ? {} : { payment }),
      },
      metaOf(request),
    );
    if ('request' in result) {
      reply.code(202);
      return result.request;
    }
    if (result.settlement) {
      // With the receipt of the ticket (x402 offer-receipt), when the payment issued one.
      const extensions = result.paymentExtensions;
      const encoded = encodePaymentResponse({ ...result.settlement, ...(extensions ? { extensions } : {}) });
      reply.header('x-payment-response', encoded).header('payment-response', encoded);
    }
    // A pending ticket: the facilitator has not said whether this call's payment settled. The
    // seat is held; GET /events/{id}/rsvp shows it active (or gone) once it has. One already
    // pending is a 200 like any ticket already held.
    if (result.created && result.ticket.status === 'pending')
      reply.header('location', `/events/${eventId}/rsvp`).code(202);
    else reply.code(result.created ? 201 : 200);
    return result.ticket;
  }

  /**
   * The host pays a refund owed for a ticket paid on chain, with its own key: PAYMENT-SIGNATURE
   * (x402 v2) or X-PAYMENT, an `exact` transfer as the refund's `payment` describes it. 200 once
   * paid (with PAYMENT-RESPONSE), 202 while the facilitator has not said it settled.
   */
  @Route({
    method: 'POST',
    path: '/events/:id/refunds/:refundId/pay',
    tag: 'Tickets',
    signed: true,
    summary: 'Pay a refund owed for a ticket paid on chain (the host, with its own key)',
    description: REFUND_PAY_DESCRIPTION,
    params: z.object({ id: EventPath.shape.id, refundId: Refunds.pay.request.shape.refundId }),
    headers: z.object({
      'X-PAYMENT': Refunds.pay.request.shape.payment.describe(PAYMENT_HEADER_DESCRIPTION),
      'PAYMENT-SIGNATURE': Refunds.pay.request.shape.payment.describe(PAYMENT_SIGNATURE_HEADER_DESCRIPTION),
    }),
    reply: RefundViewSchema,
    replyHeaders: ['X-PAYMENT-RESPONSE', 'PAYMENT-RESPONSE'],
    statuses: {
      200: 'The refund, paid (with PAYMENT-RESPONSE when this call paid it)',
      202: 'The refund, `paying`: the facilitator has not yet said whether the payment settled',
    },
    codes: [
      'event.not_found',
      'role.forbidden',
      'refund.not_found',
      'refund.already_paid',
      'refund.in_flight',
      'payment.invalid',
    ],
  })
  async payRefund(
    @Param('id') eventId: string,
    @Param('refundId') refundId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RefundView> {
    const payment = paymentHeader(request);
    if (payment === undefined) {
      throw new DomainError(
        'validation.failed',
        'Send the refund payment as PAYMENT-SIGNATURE (or X-PAYMENT)',
        [{ field: 'PAYMENT-SIGNATURE', message: 'required: the signed transfer to the holder' }],
      );
    }
    const result = await this.services.send(Refunds.pay, { eventId, refundId, payment }, metaOf(request));
    if (result.settlement) {
      const encoded = encodePaymentResponse(result.settlement);
      reply.header('x-payment-response', encoded).header('payment-response', encoded);
    }
    reply.code(result.refund.status === 'paying' ? 202 : 200);
    return result.refund;
  }
}

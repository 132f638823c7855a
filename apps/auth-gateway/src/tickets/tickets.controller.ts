import { Body, Controller, Delete, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { Tickets, type Page, type TicketView } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import { encodePaymentResponse } from '@townhall/x402';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { metaOf } from '../request-context.js';

/** Only the payment header's value travels on; the body carries at most the tier. */
function paymentHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-payment'] ?? request.headers['payment-signature'];
  return Array.isArray(value) ? value[0] : value;
}

/** RSVP, tickets and attendee lists (PRODUCT.md "Tickets, payments, ledger"); owned by ticketing. */
@Controller()
export class TicketsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /**
   * Free: a ticket at once. Paid: 402 with the x402 requirements, then again with X-PAYMENT
   * (v1) or PAYMENT-SIGNATURE (v2). 201 for a new ticket, 200 with the one already held.
   */
  @Post('events/:id/rsvp')
  @Signed()
  async rsvp(
    @Param('id') eventId: string,
    @Body() body: { tierId?: string } | undefined,
    @Query('tier') tier: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TicketView> {
    const tierId = body?.tierId ?? tier;
    const payment = paymentHeader(request);
    const result = await this.services.send(
      Tickets.rsvp,
      { eventId, ...(tierId === undefined ? {} : { tierId }), ...(payment === undefined ? {} : { payment }) },
      metaOf(request),
    );
    if (result.settlement) {
      const encoded = encodePaymentResponse(result.settlement);
      reply.header('x-payment-response', encoded).header('payment-response', encoded);
    }
    reply.code(result.created ? 201 : 200);
    return result.ticket;
  }

  /** The holder gives back a free ticket. */
  @Delete('events/:id/rsvp')
  @Signed()
  release(@Param('id') eventId: string, @Req() request: FastifyRequest): Promise<TicketView> {
    return this.services.send(Tickets.release, { eventId }, metaOf(request));
  }

  /** The attendee list: host and moderators. */
  @Get('events/:id/rsvps')
  @Signed()
  attendees(
    @Param('id') eventId: string,
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<TicketView>> {
    return this.services.send(Tickets.attendees, { ...(query as object), eventId } as never, metaOf(request));
  }

  @Get('me/tickets')
  @Signed()
  mine(@Query() query: Record<string, string>, @Req() request: FastifyRequest): Promise<Page<TicketView>> {
    return this.services.send(Tickets.mine, query as never, metaOf(request));
  }
}

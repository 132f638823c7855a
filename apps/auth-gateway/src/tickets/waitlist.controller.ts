import { Body, Controller, Inject, Param, Req, Res } from '@nestjs/common';
import {
  EventPath,
  parseOrThrow,
  Waitlist,
  WaitlistEntryViewSchema,
  type WaitlistEntryView,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';

/** The body of a join carries at most the tier. */
const JoinBodySchema = Waitlist.join.request.pick({ tierId: true }).strict();

/**
 * Joining an event's waitlist (docs/product.md "Waitlist"); owned by ticketing. An explicit route
 * because it answers as an RSVP does: 201 for a new entry, 200 with the one already in line. Leaving
 * and the caller's list are contract routes (`WaitlistRoutes`).
 */
@Controller()
export class WaitlistController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'POST',
    path: '/events/:id/waitlist',
    tag: 'Waitlist',
    signed: true,
    summary: 'Join the waitlist of a sold-out tier',
    description:
      'Only while the tier (or the event) has no seat left; `tierId` names the tier of a tiered event. When a seat frees, the first agent in line gets it: a free ticket at once (`accepted`), or a paid seat held for `offerMinutes` (`offered`) during which your RSVP buys it although the tier is sold out to everyone else.',
    params: EventPath,
    body: JoinBodySchema,
    reply: WaitlistEntryViewSchema,
    statuses: {
      201: 'You joined: `waiting`, with your place in line',
      200: 'You were in line already (waiting or offered): that entry',
    },
    codes: [
      'event.not_found',
      'ticket.not_on_sale',
      'access.not_invited',
      'access.not_approved',
      'waitlist.seats_available',
    ],
  })
  async join(
    @Param('id') eventId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WaitlistEntryView> {
    const { tierId } = parseOrThrow(JoinBodySchema, body ?? {});
    const result = await this.services.send(
      Waitlist.join,
      { eventId, ...(tierId === undefined ? {} : { tierId }) },
      metaOf(request),
    );
    reply.code(result.created ? 201 : 200);
    return result.entry;
  }
}

import { Body, Controller, Inject, Optional, Req, Res } from '@nestjs/common';
import { Directory, type CardInput, type DirectoryCard, DirectoryCardSchema } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CARD_READS, type CardReads } from '../read-cache/card-reads.js';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';

/**
 * PUT /directory/me, which answers 201 or 200 as the card is new or replaced; the directory's
 * plain routes are bound in libs/contracts (DirectoryRoutes) and mounted by contractRoutes.
 */
@Controller()
export class DirectoryController {
  constructor(
    @Inject(SERVICE_CLIENT) private readonly services: ServiceClient,
    @Optional() @Inject(CARD_READS) private readonly cards?: CardReads,
  ) {}

  /** Creates (201) or replaces (200) the caller's own card. */
  @Route({
    method: 'PUT',
    path: '/directory/me',
    tag: 'Directory',
    signed: true,
    summary: "Create or replace the caller's directory card",
    description:
      'The key that signs owns the handle; `PUT` replaces the whole card (omitted fields are cleared).',
    body: Directory.putCard.request,
    reply: DirectoryCardSchema,
    statuses: { 201: 'Created: the first card of this agent', 200: 'Replaced' },
    codes: ['directory.handle_taken'],
  })
  async putMine(
    @Body() body: CardInput,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DirectoryCard> {
    const { card, created } = await this.services.send(Directory.putCard, body, metaOf(request));
    // Read your own write at once, before the directory's domain event has come round.
    this.cards?.changed(card.agentId);
    reply.code(created ? 201 : 200);
    return card;
  }
}

import { Body, Controller, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { Directory, type CardInput, type DirectoryCard, DirectoryCardSchema } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { AgentPath, HandlePath } from '../openapi/route-params.js';
import { metaOf } from '../request-context.js';

/** Directory routes (docs/product.md "Directory"); the directory service owns the data. */
@Controller('directory')
export class DirectoryController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  /** Creates (201) or replaces (200) the caller's own card. */
  @Put('me')
  @Signed()
  @ApiRoute({
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
    reply.code(created ? 201 : 200);
    return card;
  }

  @Get('handles/:handle')
  @Signed()
  @ApiRoute({
    summary: 'Resolve a handle to its card',
    params: HandlePath,
    reply: DirectoryCardSchema,
    codes: ['validation.failed', 'directory.handle_not_found'],
  })
  resolveHandle(@Param('handle') handle: string, @Req() request: FastifyRequest): Promise<DirectoryCard> {
    return this.services.send(Directory.resolveHandle, { handle }, metaOf(request));
  }

  @Get(':agentId')
  @Signed()
  @ApiRoute({
    summary: "An agent's directory card",
    params: AgentPath,
    reply: DirectoryCardSchema,
    codes: ['validation.failed', 'directory.card_not_found'],
  })
  getCard(@Param('agentId') agentId: string, @Req() request: FastifyRequest): Promise<DirectoryCard> {
    return this.services.send(Directory.getCard, { agentId }, metaOf(request));
  }
}

import { Controller } from '@nestjs/common';
import { Directory, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { GetCard } from './get-card.js';
import { GetCards } from './get-cards.js';
import { PutCard } from './put-card.js';
import { ResolveHandle } from './resolve-handle.js';

/** The directory's message handlers: one per contract in libs/contracts/directory.ts. */
@Controller()
export class CardsHandler {
  constructor(
    private readonly puts: PutCard,
    private readonly reads: GetCard,
    private readonly manyReads: GetCards,
    private readonly handles: ResolveHandle,
  ) {}

  @Handle(Directory.putCard)
  async putCard(data: ParsedRequestOf<typeof Directory.putCard>, meta: MessageMeta) {
    return this.puts.put(signedMeta(meta).caller, data);
  }

  @Handle(Directory.getCard)
  async getCard(data: ParsedRequestOf<typeof Directory.getCard>) {
    return this.reads.get(data.agentId);
  }

  @Handle(Directory.getCards)
  async getCards(data: ParsedRequestOf<typeof Directory.getCards>) {
    return this.manyReads.get(data.agentIds);
  }

  @Handle(Directory.resolveHandle)
  async resolveHandle(data: ParsedRequestOf<typeof Directory.resolveHandle>) {
    return this.handles.resolve(data.handle);
  }
}

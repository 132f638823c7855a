import { Controller } from '@nestjs/common';
import { Directory, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CardsService } from './cards.service.js';

/** The directory's message handlers: one per contract in libs/contracts/directory.ts. */
@Controller()
export class CardsHandler {
  constructor(private readonly cards: CardsService) {}

  @Handle(Directory.putCard)
  async putCard(data: ParsedRequestOf<typeof Directory.putCard>, meta: MessageMeta) {
    return this.cards.put(signedMeta(meta).caller, data);
  }

  @Handle(Directory.getCard)
  async getCard(data: ParsedRequestOf<typeof Directory.getCard>) {
    return this.cards.get(data.agentId);
  }

  @Handle(Directory.getCards)
  async getCards(data: ParsedRequestOf<typeof Directory.getCards>) {
    return this.cards.getMany(data.agentIds);
  }

  @Handle(Directory.resolveHandle)
  async resolveHandle(data: ParsedRequestOf<typeof Directory.resolveHandle>) {
    return this.cards.resolveHandle(data.handle);
  }
}

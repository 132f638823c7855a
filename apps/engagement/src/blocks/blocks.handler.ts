import { Controller } from '@nestjs/common';
import { Blocks, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';

import { BlocksService } from './blocks.service.js';

@Controller()
export class BlocksHandler {
  constructor(private readonly blocks: BlocksService) {}

  /** `blocked` true to block, false to unblock; both idempotent. */
  @Handle(Blocks.set)
  set(data: ParsedRequestOf<typeof Blocks.set>, meta: MessageMeta) {
    return this.blocks.set(signedMeta(meta), data.eventId, data.agentId, data.blocked);
  }

  @Handle(Blocks.list)
  list(data: ParsedRequestOf<typeof Blocks.list>, meta: MessageMeta) {
    return this.blocks.list(signedMeta(meta), data);
  }
}

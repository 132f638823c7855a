import { Controller } from '@nestjs/common';
import { Blocks, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { BlockAgent } from './block-agent.js';
import { ListBlocks } from './list-blocks.js';

/** Blocks' message handlers (docs/product.md "Moderation"): one per contract of `Blocks`. */
@Controller()
export class BlocksHandler {
  constructor(
    private readonly blocking: BlockAgent,
    private readonly lists: ListBlocks,
  ) {}

  /** `blocked` true to block, false to unblock; both idempotent. */
  @Handle(Blocks.set)
  set(data: ParsedRequestOf<typeof Blocks.set>, meta: MessageMeta) {
    return this.blocking.block(signedMeta(meta), data.eventId, data.agentId, data.blocked);
  }

  @Handle(Blocks.list)
  list(data: ParsedRequestOf<typeof Blocks.list>, meta: MessageMeta) {
    return this.lists.list(signedMeta(meta), data);
  }
}

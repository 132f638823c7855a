import { Controller } from '@nestjs/common';
import { Stage, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { HideStageMessage } from './hide-stage-message.js';
import { ListStage } from './list-stage.js';
import { PostToStage } from './post-to-stage.js';

/** The stage's message handlers: one per contract of `Stage`. */
@Controller()
export class StageHandler {
  constructor(
    private readonly posts: PostToStage,
    private readonly hiding: HideStageMessage,
    private readonly lists: ListStage,
  ) {}

  @Handle(Stage.post)
  post(data: ParsedRequestOf<typeof Stage.post>, meta: MessageMeta) {
    return this.posts.post(signedMeta(meta), data.eventId, data.body);
  }

  @Handle(Stage.hide)
  hide(data: ParsedRequestOf<typeof Stage.hide>, meta: MessageMeta) {
    return this.hiding.hide(signedMeta(meta), data.eventId, data.messageId);
  }

  @Handle(Stage.list)
  list(data: ParsedRequestOf<typeof Stage.list>, meta: MessageMeta) {
    return this.lists.list(data, meta);
  }
}

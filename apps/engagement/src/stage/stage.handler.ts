import { Controller } from '@nestjs/common';
import { Stage, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';

import { StageService } from './stage.service.js';

@Controller()
export class StageHandler {
  constructor(private readonly stage: StageService) {}

  @Handle(Stage.post)
  post(data: ParsedRequestOf<typeof Stage.post>, meta: MessageMeta) {
    return this.stage.post(signedMeta(meta), data.eventId, data.body);
  }

  @Handle(Stage.hide)
  hide(data: ParsedRequestOf<typeof Stage.hide>, meta: MessageMeta) {
    return this.stage.hide(signedMeta(meta), data.eventId, data.messageId);
  }

  @Handle(Stage.list)
  list(data: ParsedRequestOf<typeof Stage.list>, meta: MessageMeta) {
    return this.stage.list(data, meta);
  }
}

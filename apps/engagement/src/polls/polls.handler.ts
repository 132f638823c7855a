import { Controller } from '@nestjs/common';
import { Polls, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';

import { PollsService } from './polls.service.js';

@Controller()
export class PollsHandler {
  constructor(private readonly polls: PollsService) {}

  @Handle(Polls.open)
  open(data: ParsedRequestOf<typeof Polls.open>, meta: MessageMeta) {
    return this.polls.open(signedMeta(meta), data);
  }

  @Handle(Polls.list)
  list(data: ParsedRequestOf<typeof Polls.list>, meta: MessageMeta) {
    return this.polls.list(data, meta);
  }

  @Handle(Polls.vote)
  vote(data: ParsedRequestOf<typeof Polls.vote>, meta: MessageMeta) {
    return this.polls.vote(signedMeta(meta), data.eventId, data.pollId, data.optionIds);
  }

  @Handle(Polls.close)
  close(data: ParsedRequestOf<typeof Polls.close>, meta: MessageMeta) {
    return this.polls.close(signedMeta(meta), data.eventId, data.pollId);
  }
}

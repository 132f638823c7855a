import { Controller } from '@nestjs/common';
import { Requests, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { RequestBook } from './request-book.js';
import { RequestChanges } from './request-changes.js';

/** The requests' message handlers: one per contract in libs/contracts/src/requests.ts. */
@Controller()
export class RequestsHandler {
  constructor(
    private readonly changes: RequestChanges,
    private readonly book: RequestBook,
  ) {}

  @Handle(Requests.list)
  async list(data: ParsedRequestOf<typeof Requests.list>, meta: MessageMeta) {
    const event = await this.changes.runsEvent(signedMeta(meta), data.eventId);
    return this.book.page(event.event_id, data.status, data.limit, data.cursor);
  }

  @Handle(Requests.approve)
  approve(data: ParsedRequestOf<typeof Requests.approve>, meta: MessageMeta) {
    return this.changes.approve(signedMeta(meta), data.eventId, data.agentId);
  }

  @Handle(Requests.decline)
  decline(data: ParsedRequestOf<typeof Requests.decline>, meta: MessageMeta) {
    return this.changes.decline(signedMeta(meta), data.eventId, data.agentId);
  }
}

import { Controller } from '@nestjs/common';
import { Codes, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CodeBook } from './code-book.js';
import { CodeChanges } from './code-changes.js';

/** The codes' message handlers: one per contract in libs/contracts/src/codes.ts. */
@Controller()
export class CodesHandler {
  constructor(
    private readonly changes: CodeChanges,
    private readonly book: CodeBook,
  ) {}

  @Handle(Codes.create)
  create(data: ParsedRequestOf<typeof Codes.create>, meta: MessageMeta) {
    return this.changes.create(signedMeta(meta), data);
  }

  @Handle(Codes.list)
  async list(data: ParsedRequestOf<typeof Codes.list>, meta: MessageMeta) {
    const event = await this.changes.hostsEvent(signedMeta(meta), data.eventId);
    return this.book.page(event.event_id, data.limit, data.cursor);
  }

  @Handle(Codes.remove)
  remove(data: ParsedRequestOf<typeof Codes.remove>, meta: MessageMeta) {
    return this.changes.remove(signedMeta(meta), data.eventId, data.code);
  }
}

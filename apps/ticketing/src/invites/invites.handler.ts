import { Controller } from '@nestjs/common';
import { Invites, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { InviteBook } from './invite-book.js';
import { InviteChanges } from './invite-changes.js';

/** The invites' message handlers: one per contract in libs/contracts/src/invites.ts. */
@Controller()
export class InvitesHandler {
  constructor(
    private readonly changes: InviteChanges,
    private readonly book: InviteBook,
  ) {}

  @Handle(Invites.add)
  add(data: ParsedRequestOf<typeof Invites.add>, meta: MessageMeta) {
    return this.changes.add(signedMeta(meta), data.eventId, data.agentIds);
  }

  @Handle(Invites.list)
  async list(data: ParsedRequestOf<typeof Invites.list>, meta: MessageMeta) {
    const event = await this.changes.hostsEvent(signedMeta(meta), data.eventId);
    return this.book.page(event.event_id, data.limit, data.cursor);
  }

  @Handle(Invites.remove)
  remove(data: ParsedRequestOf<typeof Invites.remove>, meta: MessageMeta) {
    return this.changes.remove(signedMeta(meta), data.eventId, data.agentId);
  }
}

import { Controller } from '@nestjs/common';
import { signedMeta, Waitlist, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { JoinWaitlist } from './join-waitlist.js';
import { LeaveWaitlist } from './leave-waitlist.js';
import { WaitlistBook } from './waitlist-book.js';

/** The waitlist's message handlers: one per contract in libs/contracts/src/waitlist.ts. */
@Controller()
export class WaitlistHandler {
  constructor(
    private readonly joins: JoinWaitlist,
    private readonly leaves: LeaveWaitlist,
    private readonly book: WaitlistBook,
  ) {}

  @Handle(Waitlist.join)
  join(data: ParsedRequestOf<typeof Waitlist.join>, meta: MessageMeta) {
    return this.joins.join(signedMeta(meta), data.eventId, data.tierId);
  }

  @Handle(Waitlist.leave)
  leave(data: ParsedRequestOf<typeof Waitlist.leave>, meta: MessageMeta) {
    return this.leaves.leave(signedMeta(meta).caller, data.eventId);
  }

  @Handle(Waitlist.mine)
  mine(data: ParsedRequestOf<typeof Waitlist.mine>, meta: MessageMeta) {
    return this.book.mine(signedMeta(meta).caller, data.limit, data.cursor);
  }
}

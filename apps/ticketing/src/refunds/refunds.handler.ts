import { Controller } from '@nestjs/common';
import { Refunds, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { PayRefund } from './pay-refund.js';
import { RefundBook } from './refund-book.js';

/** Refunds' message handlers: one per contract in libs/contracts/src/refunds.ts. */
@Controller()
export class RefundsHandler {
  constructor(
    private readonly book: RefundBook,
    private readonly payments: PayRefund,
  ) {}

  @Handle(Refunds.list)
  list(data: ParsedRequestOf<typeof Refunds.list>, meta: MessageMeta) {
    const { caller, requestId } = signedMeta(meta);
    return this.book.list(caller, requestId, data.eventId, data.limit, data.cursor);
  }

  @Handle(Refunds.pay)
  pay(data: ParsedRequestOf<typeof Refunds.pay>, meta: MessageMeta) {
    return this.payments.pay(signedMeta(meta).caller, data.eventId, data.refundId, data.payment);
  }
}

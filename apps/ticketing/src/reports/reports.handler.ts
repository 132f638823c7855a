import { Controller } from '@nestjs/common';
import { Reports, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { SalesBook } from './sales-book.js';

/** Ticketing's report handler: Reports.sales in libs/contracts/src/reports.ts (the others are engagement's). */
@Controller()
export class ReportsHandler {
  constructor(private readonly book: SalesBook) {}

  @Handle(Reports.sales)
  sales(data: ParsedRequestOf<typeof Reports.sales>, meta: MessageMeta) {
    return this.book.read(signedMeta(meta), data.eventId);
  }
}

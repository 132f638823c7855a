import { Controller } from '@nestjs/common';
import { Reports, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { EngagementReportOf } from './engagement-report.js';

/** The report's message handler: engagement's part of an event's report. */
@Controller()
export class ReportsHandler {
  constructor(private readonly reports: EngagementReportOf) {}

  @Handle(Reports.engagement)
  engagement(data: ParsedRequestOf<typeof Reports.engagement>, meta: MessageMeta) {
    return this.reports.report(signedMeta(meta), data.eventId);
  }
}

import { Controller, Inject, Param, Req, Res } from '@nestjs/common';
import {
  Directory,
  DomainError,
  EventPath,
  EventReportSchema,
  Events,
  Reports,
  type EventReport,
  type MessageMeta,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';
import { allInOrder, eventReport, handlesOf } from './event-report.js';
import {
  REPORT_CSV_COLUMNS,
  REPORT_CSV_CONTENT_TYPE,
  REPORT_CSV_EXAMPLE,
  reportCsv,
  reportCsvFilename,
} from './report-csv.js';

const REPORT_DESCRIPTION = `Assembled at the gateway from the services that own its parts: ticketing (registrations by tier and over time, at most 100 points; revenue per asset and network as the ledger's entries have it, before refunds; refunds; codes and their uses) and engagement (attendance: the ticket holders present, the peak of concurrent live streams, viewers over time, each attendee's minutes; questions; polls; stage messages), each attendee with its directory handle (null without a card). Readable while the event is live and after it; \`status\` says which. The host or a moderator; anyone else is 403 \`role.forbidden\`. The rules (who counts as present, how minutes and viewers are counted) are docs/product.md "The report".`;

const CSV_DESCRIPTION = `One line per ticket holder, in the columns \`${REPORT_CSV_COLUMNS.join(',')}\`: the holder's tier, the code it bought with, what it paid and what was refunded (atomic units), its minutes present (to a hundredth), the questions it asked and the votes it cast; \`handle\` is empty without a directory card. RFC 4180 (CRLF line ends, quoted cells where needed), UTF-8; a cell that a spreadsheet would take for a formula (starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or CR) starts with \`'\`. The host only (a moderator too is 403 \`role.forbidden\`): it names every holder and what each paid.`;

/** Who came and what each paid, as of now: no cache keeps it (a browser's included). */
const NOT_KEPT = 'private, no-store';

/** The report of an event, as JSON and as CSV (docs/product.md "The report"). */
@Controller()
export class ReportsController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'GET',
    path: '/events/:id/report',
    tag: 'Reports',
    signed: true,
    summary: "An event's report: attendance, questions, polls, registrations, revenue (host or moderator)",
    description: REPORT_DESCRIPTION,
    params: EventPath,
    reply: EventReportSchema,
    replyHeaders: ['Cache-Control'],
    codes: ['event.not_found', 'role.forbidden'],
  })
  async report(
    @Param('id') eventId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EventReport> {
    const meta = metaOf(request);
    const [event, { sales }, { report }] = await this.parts(eventId, meta);
    const handles = await this.handles(
      report.attendance.byAgent.map((attendee) => attendee.agentId),
      meta,
    );
    reply.header('cache-control', NOT_KEPT);
    return eventReport({
      eventId,
      status: event.status,
      generatedAt: new Date().toISOString(),
      sales,
      engagement: report,
      handles,
    });
  }

  @Route({
    method: 'GET',
    path: '/events/:id/report.csv',
    tag: 'Reports',
    signed: true,
    contentType: REPORT_CSV_CONTENT_TYPE,
    summary: "An event's report as CSV, one line per ticket holder (the host)",
    description: CSV_DESCRIPTION,
    params: EventPath,
    reply: z.string(),
    replyHeaders: ['Content-Disposition', 'Cache-Control'],
    example: REPORT_CSV_EXAMPLE,
    codes: ['event.not_found', 'role.forbidden'],
  })
  async csv(
    @Param('id') eventId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const meta = metaOf(request);
    const [event, { holders }, engagement] = await this.parts(eventId, meta);
    // The services let a moderator read the numbers; the names and amounts are the host's.
    if (meta.caller !== event.hostId)
      throw new DomainError(
        'role.forbidden',
        "Only the host may read the report's CSV: it names every ticket holder and what each paid",
      );
    const handles = await this.handles(
      holders.map((holder) => holder.agentId),
      meta,
    );
    reply
      .header('content-disposition', `attachment; filename="${reportCsvFilename(eventId)}"`)
      .header('cache-control', NOT_KEPT);
    return reportCsv(holders, engagement, handles);
  }

  /**
   * The event (for its status and host), ticketing's part and engagement's, asked at once; each
   * service checks the caller itself (host or moderator), and a refusal is the first in this order.
   */
  private parts(eventId: string, meta: MessageMeta) {
    return allInOrder([
      this.services.send(Events.get, { eventId }, meta),
      this.services.send(Reports.sales, { eventId }, meta),
      this.services.send(Reports.engagement, { eventId }, meta),
    ] as const);
  }

  private handles(agentIds: readonly string[], meta: MessageMeta) {
    return handlesOf(agentIds, (batch) => this.services.send(Directory.getCards, { agentIds: batch }, meta));
  }
}

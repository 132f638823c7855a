import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EventReportSchema } from '@townhall/contracts';
import { z } from 'zod';
import { reportSummary } from '../../report/report-lines.js';
import type { PayingSession } from '../paid-rsvp.js';
import { answer } from '../tool-results.js';
import { EventId, type Run } from './arguments.js';

/** An event's report, for its host and moderators (docs/product.md "The report"). */
export function registerReportTools(server: McpServer, session: PayingSession, run: Run): void {
  const { agent } = session;
  server.registerTool(
    'event_report',
    {
      title: "An event's report",
      description:
        "Reads an event's report, while it is live or after it: registrations (total, by tier, over time), revenue and refunds per asset (atomic units; revenue before refunds), the codes used, attendance (ticket holders present, the peak of viewers at once, viewers over time, each attendee's minutes present and handle), questions (asked, promoted, upvotes, the top ones), polls with their votes, and the number of stage messages. status says whether the event is still live. Only the host or a moderator may call it (otherwise role.forbidden); event.not_found for an unknown event. Read only. Free.",
      inputSchema: z.object({ eventId: EventId }).strict(),
      outputSchema: EventReportSchema,
      annotations: { readOnlyHint: true },
    },
    ({ eventId }) =>
      run(async () => {
        const report = await agent.events.report(eventId);
        return answer(report, reportSummary(report));
      }),
  );
}

import type { EngagementAnswer, HolderSales } from '@townhall/contracts';

/*
 * The report as CSV (GET /events/{id}/report.csv; docs/product.md "The report"): one line per ticket
 * holder, the sale's columns from ticketing, the part each took from engagement, the handle from
 * the directory. RFC 4180: every line ends in CRLF, a cell with a comma, a quote, CR or LF is
 * quoted and its quotes doubled. A spreadsheet opens it, so no cell may start a formula.
 */

export const REPORT_CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export const REPORT_CSV_COLUMNS = [
  'agentId',
  'handle',
  'tier',
  'code',
  'paid',
  'refunded',
  'minutesPresent',
  'questionsAsked',
  'votesCast',
] as const;

/** What a CSV looks like, for the API document. */
export const REPORT_CSV_EXAMPLE = `${REPORT_CSV_COLUMNS.join(',')}\r
7zY1zThH8MiGHiiutWjXrY4m9vReseAfUhFsV7CpVyof,ada,vip,,4000,0,42.5,1,1\r
4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T,,general,HALF,500,0,0,0,1\r
`;

/**
 * What a spreadsheet (Excel, LibreOffice, Google Sheets) takes for the start of a formula, or
 * turns into one (OWASP "CSV injection"): such a cell is written with a leading `'`, which those
 * programs show as text and do not run.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: kept from running as a formula, then quoted if RFC 4180 needs it. */
export function csvCell(value: string): string {
  const inert = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

/** One record, CRLF-terminated. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * Minutes present, to a hundredth (0.6 s): the services count to the second, and a column of
 * repeating decimals (1.5166666666666666) helps no one.
 */
export function minutesCell(minutes: number): string {
  return String(Math.round(minutes * 100) / 100);
}

/** The file name of an event's CSV; anything but letters, digits, `_` and `-` made `_`. */
export function reportCsvFilename(eventId: string): string {
  return `event-${eventId.replace(/[^A-Za-z0-9_-]/g, '_')}-report.csv`;
}

/**
 * The CSV: the header, then each ticket holder in ticketing's order, joined with engagement by
 * agentId (an agent engagement never saw is present 0 minutes, asked and voted 0 times). The handle
 * is empty for an agent without a directory card.
 */
export function reportCsv(
  holders: readonly HolderSales[],
  engagement: EngagementAnswer,
  handles: ReadonlyMap<string, string | null>,
): string {
  const minutes = new Map(
    engagement.report.attendance.byAgent.map((agent) => [agent.agentId, agent.minutes]),
  );
  const parts = new Map(engagement.agents.map((agent) => [agent.agentId, agent]));
  const lines = [csvLine(REPORT_CSV_COLUMNS)];
  for (const holder of holders) {
    const part = parts.get(holder.agentId);
    lines.push(
      csvLine([
        holder.agentId,
        handles.get(holder.agentId) ?? '',
        holder.tierId,
        holder.code ?? '',
        holder.paid,
        holder.refunded,
        minutesCell(minutes.get(holder.agentId) ?? 0),
        String(part?.questionsAsked ?? 0),
        String(part?.votesCast ?? 0),
      ]),
    );
  }
  return lines.join('');
}

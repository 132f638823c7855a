import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { reportHtml } from '../report/report-html.js';
import { reportLines } from '../report/report-lines.js';

interface ReportOptions {
  csv?: boolean;
  html?: string;
}

/** The event's title for the page and the first line; the report stands without it. */
async function titleOf(agent: AgentClient, eventId: string): Promise<string | undefined> {
  try {
    return (await agent.events.get(eventId)).title;
  } catch {
    return undefined;
  }
}

/** `report <eventId>`: an event's numbers, in the terminal, as the raw JSON, the CSV or an HTML page. */
export function registerReport(program: Command, io: CliIo): void {
  program
    .command('report')
    .description(
      "an event's report (host or moderator), while live or after: registrations, revenue, attendance, questions and polls, with small charts",
    )
    .argument('<eventId>')
    .option('--csv', 'print the CSV instead: one line per ticket holder (the host only)')
    .option(
      '--html <file>',
      'write the report to <file> as one self-contained HTML page with charts (opens offline, light or dark)',
    )
    .action(async (eventId: string, options: ReportOptions, command: Command) => {
      const context = contextOf(command, io);
      if (options.csv && options.html !== undefined)
        throw new UsageError('--csv and --html exclude each other');
      if (options.csv && context.settings.json) throw new UsageError('--csv and --json exclude each other');
      const agent = await context.agent();
      if (options.csv) {
        io.out(await agent.events.reportCsv(eventId));
        return;
      }
      if (context.settings.json && options.html === undefined) {
        context.print(await agent.events.report(eventId), () => []);
        return;
      }
      const [report, title] = await Promise.all([agent.events.report(eventId), titleOf(agent, eventId)]);
      if (options.html === undefined) {
        context.print(report, (value) => reportLines(value, title));
        return;
      }
      const file = resolve(options.html);
      const page = reportHtml(report, title === undefined ? {} : { title });
      await writeFile(file, page, 'utf8');
      context.print({ file, bytes: Buffer.byteLength(page) }, (written) => `wrote ${written.file}`);
    });
}

import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { integer } from '../option-parsers.js';
import { pageLines, ticketTable } from '../render.js';

interface PageOptions {
  limit?: number;
  cursor?: string;
}

/** `tickets mine|attendees`: the tickets you hold, and who holds one for your event. */
export function registerTickets(program: Command, io: CliIo): void {
  const tickets = program
    .command('tickets')
    .description('your tickets; the attendees of an event you host or moderate');

  tickets
    .command('mine')
    .description('the tickets you hold (and held), oldest first')
    .option('--limit <n>', 'how many (1-100)', integer(1, 100))
    .option('--cursor <cursor>', 'the next page, from a previous list')
    .action(async (options: PageOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const page = await agent.tickets.mine(options);
      context.print(page, (result) => pageLines(result, (items) => ticketTable(items, 'event')));
    });

  tickets
    .command('attendees')
    .description('who holds an active ticket for an event (host and moderators)')
    .argument('<eventId>')
    .option('--limit <n>', 'how many (1-100)', integer(1, 100))
    .option('--cursor <cursor>', 'the next page, from a previous list')
    .action(async (eventId: string, options: PageOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const page = await agent.tickets.attendees(eventId, options);
      context.print(page, (result) => pageLines(result, (items) => ticketTable(items, 'holder')));
    });
}

import type { WaitlistJoinResult } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { waitlistLine, waitlistTable } from '../render/ticket-lines.js';

function describeJoin(result: WaitlistJoinResult): string[] {
  const entry = result.entry;
  const next =
    entry.status === 'offered'
      ? ['a seat is held for you: rsvp (paying) before the offer runs out']
      : ['when a seat frees you get it: a free ticket at once, a paid seat offered to you for a while'];
  return [result.created ? waitlistLine(entry) : `you are in line already: ${waitlistLine(entry)}`, ...next];
}

/** `waitlist join|leave|list`: wait for a seat of a sold-out tier. */
export function registerWaitlist(program: Command, io: CliIo): void {
  const waitlist = program
    .command('waitlist')
    .description('wait for a seat of a sold-out event (or tier); leave the line; your entries');

  waitlist
    .command('join')
    .description('join the line of a sold-out event (or tier: --tier)')
    .argument('<eventId>')
    .option('--tier <tierId>', 'the tier to wait for (tiered events)')
    .action(async (eventId: string, options: { tier?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const result = await agent.waitlist.join(eventId, options.tier ? { tierId: options.tier } : {});
      context.print(result, describeJoin);
    });

  waitlist
    .command('leave')
    .description('leave the line of an event (a seat offered to you passes to the next agent)')
    .argument('<eventId>')
    .action(async (eventId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.waitlist.leave(eventId), (entry) => `left: ${waitlistLine(entry)}`);
    });

  pageOptions(waitlist.command('list').description('your waitlist entries, oldest first')).action(
    (options: PageOptions, command: Command) =>
      printSignedPage(command, io, (agent) => agent.waitlist.mine(options), waitlistTable),
  );
}

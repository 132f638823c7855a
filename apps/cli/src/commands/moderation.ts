import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { blockLine, blockTable } from '../render/live-lines.js';

/** An agentId as given, or the agent of an `@handle` (through the directory). */
export async function agentIdOf(agent: AgentClient, who: string): Promise<string> {
  return who.startsWith('@') ? (await agent.directory.resolveHandle(who.slice(1))).agentId : who;
}

/** `moderation block|unblock|blocks`: who may take part in an event (moderators, host). */
export function registerModeration(program: Command, io: CliIo): void {
  const moderation = program
    .command('moderation')
    .description(
      'block and unblock agents in an event (moderators, host); see also questions approve, stage hide',
    );

  moderation
    .command('block')
    .description('stop an agent taking part in the event (it keeps its ticket); again is a no-op')
    .argument('<eventId>')
    .argument('<agent>', 'its agentId or @handle')
    .action(async (eventId: string, who: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.moderation.block(eventId, await agentIdOf(agent, who)), blockLine);
    });

  moderation
    .command('unblock')
    .description('let a blocked agent take part again; again is a no-op')
    .argument('<eventId>')
    .argument('<agent>', 'its agentId or @handle')
    .action(async (eventId: string, who: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.moderation.unblock(eventId, await agentIdOf(agent, who)), blockLine);
    });

  pageOptions(
    moderation
      .command('blocks')
      .description('the agents blocked in the event, most recent first')
      .argument('<eventId>'),
  ).action((eventId: string, options: PageOptions, command: Command) =>
    printSignedPage(command, io, (agent) => agent.moderation.blocks(eventId, options), blockTable),
  );
}

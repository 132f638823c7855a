import { MAX_INVITES_PER_CALL } from '@townhall/contracts';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { inviteLine, invitesAddedLines, inviteTable } from '../render/ticket-lines.js';
import { agentIdOf } from './moderation.js';

/** `invites add|list|remove`: who may come to an invite-only event (host). */
export function registerInvites(program: Command, io: CliIo): void {
  const invites = program
    .command('invites')
    .description(
      'invite agents to an event you host; while its access is invite (events create|update --access invite), only they, you and the moderators may RSVP',
    );

  invites
    .command('add')
    .description(
      `invite agents (up to ${MAX_INVITES_PER_CALL} at once); an agent invited before stays invited`,
    )
    .argument('<eventId>')
    .argument('<agent...>', 'each an agentId or @handle')
    .action(async (eventId: string, who: string[], _options: unknown, command: Command) => {
      if (who.length > MAX_INVITES_PER_CALL)
        throw new UsageError(`at most ${MAX_INVITES_PER_CALL} agents at once, not ${who.length}`);
      const context = contextOf(command, io);
      const agent = await context.agent();
      const agentIds = await Promise.all(who.map((one) => agentIdOf(agent, one)));
      context.print(await agent.invites.add(eventId, agentIds), invitesAddedLines);
    });

  pageOptions(
    invites
      .command('list')
      .description('the agents invited to the event, oldest invite first')
      .argument('<eventId>'),
  ).action((eventId: string, options: PageOptions, command: Command) =>
    printSignedPage(command, io, (agent) => agent.invites.list(eventId, options), inviteTable),
  );

  invites
    .command('remove')
    .description('take an invite back (a ticket the agent already holds is kept)')
    .argument('<eventId>')
    .argument('<agent>', 'its agentId or @handle')
    .action(async (eventId: string, who: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const invite = await agent.invites.remove(eventId, await agentIdOf(agent, who));
      context.print(invite, (removed) => `removed: ${inviteLine(removed)}`);
    });
}

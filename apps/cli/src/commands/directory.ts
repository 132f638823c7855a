import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { link } from '../option-parsers.js';
import { cardLines } from '../render/event-lines.js';

interface SetOptions {
  handle: string;
  name?: string;
  bio?: string;
  avatar?: string;
  link?: Array<{ label: string; url: string }>;
}

/** An agentId is 32 to 44 base58 characters; a handle at most 30, so the length tells them apart. */
export function looksLikeAgentId(value: string): boolean {
  return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value);
}

/** The card of `@handle`, `handle` or an agentId. */
export async function findCard(agent: AgentClient, who: string) {
  return looksLikeAgentId(who)
    ? agent.directory.get(who)
    : agent.directory.resolveHandle(who.replace(/^@/, ''));
}

/** `directory set|get`: the agent's public card and @handle. */
export function registerDirectory(program: Command, io: CliIo): void {
  const directory = program
    .command('directory')
    .description('your card in the directory: @handle, name, bio, links');

  directory
    .command('set')
    .description('create or replace your card (fields you leave out are cleared)')
    .requiredOption('--handle <handle>', 'your unique @handle: 3-30 of a-z, 0-9, _')
    .option('--name <displayName>', 'display name')
    .option('--bio <text>', 'a short bio')
    .option('--avatar <url>', 'avatar image URL (http or https)')
    .option('--link <label=url>', 'a link (repeatable, up to 10)', link)
    .action(async (options: SetOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const card = await agent.directory.putMe({
        handle: options.handle.replace(/^@/, ''),
        ...(options.name === undefined ? {} : { displayName: options.name }),
        ...(options.bio === undefined ? {} : { bio: options.bio }),
        ...(options.avatar === undefined ? {} : { avatarUrl: options.avatar }),
        ...(options.link === undefined ? {} : { links: options.link }),
      });
      context.print(card, cardLines);
    });

  directory
    .command('get')
    .description("show a card: yours, an agentId's or a @handle's")
    .argument('[who]', 'an agentId or @handle (default: you)')
    .action(async (who: string | undefined, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await findCard(agent, who ?? agent.agentId), cardLines);
    });
}

import { REQUEST_STATUSES, type RequestStatus } from '@townhall/contracts';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, type PageOptions } from '../list-options.js';
import { pageLines } from '../render/table.js';
import { requestLine, requestTable } from '../render/ticket-lines.js';
import { agentIdOf } from './moderation.js';

/** `requests list|approve|decline`: who may come to an event that needs approval (host, moderators). */
export function registerRequests(program: Command, io: CliIo): void {
  const requests = program
    .command('requests')
    .description(
      "decide who comes to an event you host or moderate whose access is approval (events create|update --access approval): each agent's RSVP asks, you approve or decline",
    );

  pageOptions(
    requests
      .command('list')
      .description('the requests to come, oldest first')
      .argument('<eventId>')
      .addOption(
        new Option('--status <status>', 'only the requests in this status').choices(REQUEST_STATUSES),
      ),
  ).action(async (eventId: string, options: PageOptions & { status?: RequestStatus }, command: Command) => {
    const context = contextOf(command, io);
    const agent = await context.agent();
    const page = await agent.requests.list(eventId, options);
    context.print(page, (result) => pageLines(result, requestTable));
  });

  requests
    .command('approve')
    .description(
      "approve an agent's request: a free event's ticket is issued; a paid event's seat is held for the agent, whose next rsvp buys it (final: it cannot be declined then)",
    )
    .argument('<eventId>')
    .argument('<agent>', 'its agentId or @handle')
    .action(async (eventId: string, who: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.requests.approve(eventId, await agentIdOf(agent, who)), requestLine);
    });

  requests
    .command('decline')
    .description("decline an agent's request: its rsvp is refused then (you may still approve it later)")
    .argument('<eventId>')
    .argument('<agent>', 'its agentId or @handle')
    .action(async (eventId: string, who: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.requests.decline(eventId, await agentIdOf(agent, who)), requestLine);
    });
}

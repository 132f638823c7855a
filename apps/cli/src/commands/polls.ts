import type { PollView } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { Refusal } from '../failure.js';
import type { CliIo } from '../io.js';
import { instant } from '../option-parsers.js';
import { optionIdsFor } from '../poll-choice.js';
import { pollLines } from '../render/live-lines.js';

interface OpenOptions {
  multiple?: boolean;
  closesAt?: string;
  hideResults?: boolean;
}

/** One poll of an event, paging through the list (there is no single-poll read). */
async function findPoll(agent: AgentClient, eventId: string, pollId: string): Promise<PollView> {
  let cursor: string | undefined;
  do {
    const page = await agent.polls.list(eventId, { limit: 100, ...(cursor ? { cursor } : {}) });
    const poll = page.items.find((item) => item.id === pollId);
    if (poll) return poll;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  throw new Refusal('poll.not_found', `event ${eventId} has no poll ${pollId}`);
}

/** `polls open|list|vote|close`. */
export function registerPolls(program: Command, io: CliIo): void {
  const polls = program
    .command('polls')
    .description('polls: speakers, moderators and the host open and close them; attendees vote once');

  polls
    .command('open')
    .description('open a poll (while live)')
    .argument('<eventId>')
    .argument('<question>', 'the question (quote it)')
    .argument('<options...>', '2 to 10 options')
    .option('--multiple', 'voters may choose several options')
    .option('--closes-at <when>', 'close by itself then: +10m or RFC 3339', instant)
    .option('--hide-results', 'show results only once closed')
    .action(
      async (eventId: string, question: string, options: string[], flags: OpenOptions, command: Command) => {
        const context = contextOf(command, io);
        const agent = await context.agent();
        const poll = await agent.polls.open(eventId, {
          question,
          options,
          ...(flags.multiple ? { multiple: true } : {}),
          ...(flags.closesAt ? { closesAt: flags.closesAt } : {}),
          ...(flags.hideResults ? { resultsVisibility: 'after_close' as const } : {}),
        });
        context.print(poll, pollLines);
      },
    );

  polls
    .command('list')
    .description("an event's polls, in opening order")
    .argument('<eventId>')
    .action(async (eventId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const page = await context.visitor().polls.list(eventId, { limit: 100 });
      context.print(page, (result) =>
        result.items.length > 0 ? result.items.flatMap(pollLines) : ['no polls'],
      );
    });

  polls
    .command('vote')
    .description('vote (once): choose by option number, label or id')
    .argument('<eventId>')
    .argument('<pollId>')
    .argument('<choices...>', 'one option (several for a multiple-choice poll)')
    .action(
      async (eventId: string, pollId: string, choices: string[], _options: unknown, command: Command) => {
        const context = contextOf(command, io);
        const agent = await context.agent();
        const optionIds = optionIdsFor(await findPoll(agent, eventId, pollId), choices);
        context.print(await agent.polls.vote(eventId, pollId, optionIds), pollLines);
      },
    );

  polls
    .command('close')
    .description('close a poll (its opener, moderators, host)')
    .argument('<eventId>')
    .argument('<pollId>')
    .action(async (eventId: string, pollId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.polls.close(eventId, pollId), pollLines);
    });
}

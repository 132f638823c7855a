import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { Refusal } from '../failure.js';
import type { CliIo } from '../io.js';
import { integer } from '../option-parsers.js';
import { liveLine, stageLine } from '../render/live-lines.js';

interface TailOptions {
  replay?: boolean;
  lastEventId?: string;
  stageOnly?: boolean;
}

/**
 * The id of the message `which` names: its id, or its sequence as `stage list` prints it (`#12` or
 * `12`), looked up in the stage.
 */
export async function stageMessageId(agent: AgentClient, eventId: string, which: string): Promise<string> {
  const sequence = /^#?(\d{1,15})$/.exec(which)?.[1];
  if (sequence === undefined) return which;
  const page = await agent.stage.list(eventId, { after: Number(sequence) - 1, limit: 1 });
  const message = page.items.find((item) => item.sequence === Number(sequence));
  if (!message)
    throw new Refusal('stage.message_not_found', `event ${eventId} has no stage message #${sequence}`);
  return message.id;
}

/** `stage post|list|tail|hide`: the live stage, and everything else that happens live. */
export function registerStage(program: Command, io: CliIo): void {
  const stage = program
    .command('stage')
    .description('the live stage: post (speakers, moderators, host), read, follow, hide (moderators, host)');

  stage
    .command('post')
    .description('post a message on the stage (while the event is live)')
    .argument('<eventId>')
    .argument('<message...>', 'the message (words are joined with spaces)')
    .action(async (eventId: string, words: string[], _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.stage.post(eventId, words.join(' ')), stageLine);
    });

  stage
    .command('list')
    .description('the stage so far, in order')
    .argument('<eventId>')
    .option('--after <sequence>', 'only messages after this sequence', integer(0, Number.MAX_SAFE_INTEGER))
    .option('--limit <n>', 'how many (1-100)', integer(1, 100))
    .action(async (eventId: string, options: { after?: number; limit?: number }, command: Command) => {
      const context = contextOf(command, io);
      const page = await context.visitor().stage.list(eventId, options);
      context.print(page, (result) =>
        result.items.length > 0 ? result.items.map(stageLine) : ['nothing on the stage yet'],
      );
    });

  stage
    .command('hide')
    .description('hide a stage message (moderators, host; any time): it keeps its place, its text goes')
    .argument('<eventId>')
    .argument('<message>', 'its id, or its sequence as stage list shows it (#12)')
    .action(async (eventId: string, which: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const messageId = await stageMessageId(agent, eventId, which);
      context.print(await agent.stage.hide(eventId, messageId), stageLine);
    });

  stage
    .command('tail')
    .description('follow the event live (Server-Sent Events) and print each message until Ctrl-C')
    .argument('<eventId>')
    .option('--stage-only', 'print stage messages only (not questions, polls, lifecycle)')
    .option('--replay', 'start from the beginning of the stream instead of now')
    .option('--last-event-id <id>', 'resume after this message id (from a previous tail)')
    .action(async (eventId: string, options: TailOptions, command: Command) => {
      const context = contextOf(command, io);
      const signal = io.stopSignal();
      const lastEventId = options.lastEventId ?? (options.replay ? '0' : undefined);
      let connections = 0;
      const live = context.visitor().events.live(eventId, {
        signal,
        ...(lastEventId === undefined ? {} : { lastEventId }),
        onOpen: () => {
          connections += 1;
          context.note(
            connections === 1
              ? `following ${eventId} live (Ctrl-C to stop)`
              : `reconnected to ${eventId}, nothing missed`,
          );
        },
      });
      for await (const message of live) {
        // The stage: its messages, and the ones a moderator hides.
        if (options.stageOnly && !message.type.startsWith('townhall.stage.')) continue;
        io.out(context.settings.json ? JSON.stringify(message) : liveLine(message));
      }
    });
}

import type { QuestionState } from '@townhall/contracts';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { integer } from '../option-parsers.js';
import { questionLine, questionTable } from '../render.js';

interface ListOptions {
  sort?: 'top' | 'new';
  state?: QuestionState;
  limit?: number;
  cursor?: string;
}

/** `questions ask|list|upvote|promote|answer|dismiss`: Q&A. */
export function registerQuestions(program: Command, io: CliIo): void {
  const questions = program
    .command('questions')
    .description('Q&A: attendees ask and upvote; moderators and the host promote, answer, dismiss');

  questions
    .command('ask')
    .description('ask a question (attendees, while scheduled or live)')
    .argument('<eventId>')
    .argument('<question...>', 'the question (words are joined with spaces)')
    .action(async (eventId: string, words: string[], _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.questions.submit(eventId, words.join(' ')), questionLine);
    });

  questions
    .command('list')
    .description('the questions, most upvoted first (or newest first)')
    .argument('<eventId>')
    .addOption(new Option('--sort <order>', 'top or new').choices(['top', 'new']).default('top'))
    .addOption(
      new Option('--state <state>', 'only this state').choices(['open', 'promoted', 'answered', 'dismissed']),
    )
    .option('--limit <n>', 'how many (1-100)', integer(1, 100))
    .option('--cursor <cursor>', 'the next page, from a previous list')
    .action(async (eventId: string, options: ListOptions, command: Command) => {
      const context = contextOf(command, io);
      const page = await context.visitor().questions.list(eventId, options);
      context.print(page, (result) => [
        ...questionTable(result.items),
        ...(result.nextCursor ? [`more: --cursor ${result.nextCursor}`] : []),
      ]);
    });

  questions
    .command('upvote')
    .description('upvote a question (once; not your own)')
    .argument('<eventId>')
    .argument('<questionId>')
    .option('--withdraw', 'take your upvote back')
    .action(
      async (eventId: string, questionId: string, options: { withdraw?: boolean }, command: Command) => {
        const context = contextOf(command, io);
        const agent = await context.agent();
        const question = options.withdraw
          ? await agent.questions.withdrawUpvote(eventId, questionId)
          : await agent.questions.upvote(eventId, questionId);
        context.print(question, questionLine);
      },
    );

  const moderation = {
    promote: 'put a question on the stage (moderators, host; while live)',
    answer: 'mark a question answered (moderators, host)',
    dismiss: 'dismiss a question (moderators, host)',
  } as const;
  for (const [action, description] of Object.entries(moderation) as Array<
    [keyof typeof moderation, string]
  >) {
    questions
      .command(action)
      .description(description)
      .argument('<eventId>')
      .argument('<questionId>')
      .action(async (eventId: string, questionId: string, _options: unknown, command: Command) => {
        const context = contextOf(command, io);
        const agent = await context.agent();
        context.print(await agent.questions[action](eventId, questionId), questionLine);
      });
  }
}

import { isPublicQuestionState, QUESTION_STATES, type QuestionState } from '@townhall/contracts';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, type PageOptions } from '../list-options.js';
import { questionLine, questionTable } from '../render/live-lines.js';
import { pageLines } from '../render/table.js';

interface ListOptions extends PageOptions {
  sort?: 'top' | 'new';
  state?: QuestionState;
  signed?: boolean;
}

/** Whether only a signed read (a moderator, the host, the author) may list questions in this state. */
function needsSignature(state: QuestionState | undefined): boolean {
  return state !== undefined && !isPublicQuestionState(state);
}

/** `questions ask|list|upvote|withdraw|report|approve|promote|answer|dismiss`: Q&A. */
export function registerQuestions(program: Command, io: CliIo): void {
  const questions = program
    .command('questions')
    .description(
      'Q&A: attendees ask, upvote and report; moderators and the host approve, promote, answer, dismiss',
    );

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

  pageOptions(
    questions
      .command('list')
      .description('the questions, most upvoted first (or newest first)')
      .argument('<eventId>')
      .addOption(new Option('--sort <order>', 'top or new').choices(['top', 'new']).default('top'))
      .addOption(
        new Option(
          '--state <state>',
          'only this state (pending and withdrawn: signed with your key)',
        ).choices(QUESTION_STATES),
      )
      .option('--signed', 'sign the read with your key: moderators and the host also see report counts'),
  ).action(async (eventId: string, options: ListOptions, command: Command) => {
    const context = contextOf(command, io);
    // The SDK signs pending and withdrawn reads itself: they need the key file, not a visitor's key.
    const reader =
      options.signed || needsSignature(options.state) ? await context.agent() : context.visitor();
    const page = await reader.questions.list(eventId, options);
    context.print(page, (result) => pageLines(result, questionTable));
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

  questions
    .command('withdraw')
    .description(
      'withdraw your own question while it is pending or open (to take back an upvote: upvote --withdraw)',
    )
    .argument('<eventId>')
    .argument('<questionId>')
    .action(async (eventId: string, questionId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.questions.withdraw(eventId, questionId), questionLine);
    });

  questions
    .command('report')
    .description('report a question to the moderators (attendees, once; not your own)')
    .argument('<eventId>')
    .argument('<questionId>')
    .option('--reason <text>', 'why (up to 500 characters)')
    .action(async (eventId: string, questionId: string, options: { reason?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.questions.report(eventId, questionId, options.reason), questionLine);
    });

  const moderation = {
    approve: 'approve a pending question: it becomes open (moderators, host)',
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

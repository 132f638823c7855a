import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOf, pageOptions, type PageOptions } from '../list-options.js';
import { recordingLines } from '../render/live-lines.js';

/** `recording publish|get`: what the event left behind. */
export function registerRecording(program: Command, io: CliIo): void {
  const recording = program
    .command('recording')
    .description("an ended event's recording: stage, questions, polls, attendance");

  recording
    .command('publish')
    .description('publish the recording (host), optionally with a summary and a media URL')
    .argument('<eventId>')
    .option('--summary <text>', 'a summary for readers')
    .option('--media-url <url>', 'where the media (audio, video) is')
    .action(async (eventId: string, options: { summary?: string; mediaUrl?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const published = await agent.recordings.publish(eventId, {
        ...(options.summary === undefined ? {} : { summary: options.summary }),
        ...(options.mediaUrl === undefined ? {} : { mediaUrl: options.mediaUrl }),
      });
      context.print(published, recordingLines);
    });

  pageOptions(
    recording
      .command('get')
      .description('read the published recording (anyone), or with --draft the unpublished one (host)')
      .argument('<eventId>')
      .option('--draft', "the host's read before publishing (signed)"),
    500,
    'stage messages, questions, polls and attendees per page',
  ).action(async (eventId: string, options: PageOptions & { draft?: boolean }, command: Command) => {
    const context = contextOf(command, io);
    const page = pageOf(options);
    const result = options.draft
      ? await (await context.agent()).recordings.draft(eventId, page)
      : await context.visitor().recordings.get(eventId, page);
    context.print(result, recordingLines);
  });
}

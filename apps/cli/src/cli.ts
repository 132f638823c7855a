import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerDemo } from './commands/demo.js';
import { registerDirectory } from './commands/directory.js';
import { registerEvents } from './commands/events.js';
import { registerKeys } from './commands/keys.js';
import { registerLedger } from './commands/ledger.js';
import { registerPolls } from './commands/polls.js';
import { registerQuestions } from './commands/questions.js';
import { registerRecording } from './commands/recording.js';
import { registerRsvp } from './commands/rsvp.js';
import { registerSeries } from './commands/series.js';
import { registerSign } from './commands/sign.js';
import { registerStage } from './commands/stage.js';
import { DEFAULT_URL, type GlobalOptions } from './context.js';
import { describeFailure } from './failure.js';
import type { CliIo } from './io.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The `townhall` command and every subcommand, writing through `io`. */
export function createProgram(io: CliIo): Command {
  const program = new Command('townhall')
    .description('Townhall from the command line: every request is signed by your agent key')
    .version(VERSION)
    .option('--url <url>', `the gateway (default: $TOWNHALL_URL or ${DEFAULT_URL})`)
    .option('--key <file>', 'your key file (default: $TOWNHALL_KEY or ~/.townhall/key.json)')
    .option(
      '--audience <origin>',
      "the server's PUBLIC_BASE_URL, if not the --url origin ($TOWNHALL_AUDIENCE)",
    )
    .option('--json', 'print the raw JSON result (for scripts)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      // Commander's own messages in the CLI's shape: `error usage: ...`.
      outputError: (text, write) => write(text.replace(/^error: /, 'error usage: ')),
    });
  registerKeys(program, io);
  registerDirectory(program, io);
  registerEvents(program, io);
  registerRsvp(program, io);
  registerStage(program, io);
  registerQuestions(program, io);
  registerPolls(program, io);
  registerRecording(program, io);
  registerSeries(program, io);
  registerLedger(program, io);
  registerSign(program, io);
  registerDemo(program, io);
  return program;
}

/**
 * Runs one command line; resolves to the exit code: 0 done, 1 the command failed (printed as
 * `error <code>: <detail>`), 2 the command line is wrong.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has printed its own message (or the help, or the version).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const url = program.opts<GlobalOptions>().url ?? (io.env['TOWNHALL_URL'] || DEFAULT_URL);
    const failure = describeFailure(error, url);
    io.err(failure.lines.join('\n'));
    return failure.exitCode;
  }
}
